import Foundation

/// One packet read back from a capture file.
public struct CaptureRecord: Sendable, Hashable {
    /// The record's instant at the microsecond precision the file keeps.
    public let timestampNanoseconds: Int64
    /// The packet's length on the wire; `bytes` is shorter when the snapshot length cut it.
    public let originalLength: UInt32
    public let bytes: [UInt8]

    /// Whether this is the record a packet row describes: the same instant at the file's
    /// microsecond precision and the same length on the wire.
    public func matches(timestampNanoseconds rowNanoseconds: Int64, wireLength: UInt32) -> Bool {
        CaptureRecordHeader.matches(timestampNanoseconds, originalLength, row: rowNanoseconds, wireLength: wireLength)
    }
}

/// A record's header, read in place: what a caller copying records needs besides their bytes.
public struct CaptureRecordHeader: Sendable, Hashable {
    public let timestampNanoseconds: Int64
    /// The bytes the file holds of the packet.
    public let included: UInt32
    public let originalLength: UInt32

    /// Whether this is the record a packet row describes (see `CaptureRecord.matches`).
    public func matches(timestampNanoseconds rowNanoseconds: Int64, wireLength: UInt32) -> Bool {
        Self.matches(timestampNanoseconds, originalLength, row: rowNanoseconds, wireLength: wireLength)
    }

    static func matches(_ nanoseconds: Int64, _ originalLength: UInt32, row rowNanoseconds: Int64, wireLength: UInt32) -> Bool {
        let (seconds, microseconds) = PcapFormat.recordTimestamp(nanoseconds: rowNanoseconds)
        return nanoseconds == Int64(seconds) * 1_000_000_000 + Int64(microseconds) * 1_000 && originalLength == wireLength
    }
}

/// Reads records of one capture file by the offsets the history stores. The file header is
/// checked once when the file opens, and a length is checked against the snapshot length before
/// anything is allocated. Records are read through a window of the file: an export asks for them
/// by ascending offset, so one positioned read serves many records.
public final class CaptureFileReader {
    public let path: String
    public let header: PcapFileHeader
    /// The file's size when it was opened.
    public let byteCount: UInt64
    private let descriptor: Int32
    private var window: [UInt8] = []
    private var windowStart: UInt64 = 0
    private var windowLength = 0

    static let windowCapacity = 1 << 20

    public convenience init(path: String) throws(CaptureReadError) {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw errno == ENOENT ? .missing(path: path) : .unreadable(path: path, errno: errno)
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .notRegularFile(path: path) }
        // O_NONBLOCK: should a FIFO take the file's place between the check and the open, the open
        // returns at once and the second check below refuses it.
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw errno == ENOENT ? .missing(path: path) : .unreadable(path: path, errno: errno)
        }
        try self.init(descriptor: descriptor, path: path)
    }

    /// Reads through an open descriptor, which it owns from here on (closed on failure too).
    init(descriptor: Int32, path: String) throws(CaptureReadError) {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(descriptor)
            throw .notRegularFile(path: path)
        }
        var bytes = [UInt8](repeating: 0, count: PcapFormat.fileHeaderLength)
        let read: Int
        do { read = try Self.readFully(descriptor, into: &bytes, at: 0, path: path) } catch {
            Glibc.close(descriptor)
            throw error
        }
        switch PcapFileHeader.parse(bytes.prefix(read)) {
        case .success(let header):
            self.header = header
        case .failure(let reason):
            Glibc.close(descriptor)
            throw .foreign(path: path, reason: reason)
        }
        self.path = path
        self.descriptor = descriptor
        byteCount = UInt64(max(0, status.st_size))
    }

    deinit { Glibc.close(descriptor) }

    /// Cuts the file to `length` bytes (a descriptor opened for writing: `CaptureFolder`).
    func truncate(to length: UInt64) -> Bool { ftruncate(descriptor, off_t(length)) == 0 }

    /// The record whose header starts at `offset`.
    public func record(at offset: UInt64) throws(CaptureReadError) -> CaptureRecord {
        let head = try recordHeader(at: offset)
        guard let start = Self.dataOffset(of: offset), head.included > 0 else {
            return CaptureRecord(timestampNanoseconds: head.timestampNanoseconds, originalLength: head.original, bytes: [])
        }
        guard let bytes = try windowed(count: Int(head.included), at: start) else {
            throw .recordCutShort(path: path, offset: offset)
        }
        return CaptureRecord(timestampNanoseconds: head.timestampNanoseconds, originalLength: head.original, bytes: bytes)
    }

    /// The record whose header starts at `offset`, its bytes lent to `body` where the read window
    /// holds them: an export copies hundreds of thousands of records, and an array for each was
    /// one more copy and allocation per packet. The bytes are valid only inside `body`.
    public func withRecord<Result>(
        at offset: UInt64, _ body: (CaptureRecordHeader, UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result {
        let head = try recordHeader(at: offset)
        let header = CaptureRecordHeader(timestampNanoseconds: head.timestampNanoseconds, included: head.included, originalLength: head.original)
        guard let start = Self.dataOffset(of: offset), head.included > 0 else {
            return try body(header, UnsafeRawBufferPointer(start: nil, count: 0))
        }
        let count = Int(head.included)
        guard count <= Self.windowCapacity else {
            return try record(at: offset).bytes.withUnsafeBytes { try body(header, $0) }
        }
        guard try fill(count: count, at: start) else { throw CaptureReadError.recordCutShort(path: path, offset: offset) }
        let from = Int(start - windowStart)
        return try window.withUnsafeBytes { try body(header, UnsafeRawBufferPointer(rebasing: $0[from..<(from + count)])) }
    }

    /// Walks the file from its first record: the offsets of every complete record, and where a
    /// torn tail begins if the file ends inside a record (a crash between two writes).
    public func recordOffsets() throws(CaptureReadError) -> (complete: [UInt64], tornTailAt: UInt64?) {
        var size = stat()
        guard fstat(descriptor, &size) == 0 else { throw .unreadable(path: path, errno: errno) }
        let end = UInt64(max(0, size.st_size))
        var offsets: [UInt64] = []
        var offset = UInt64(PcapFormat.fileHeaderLength)
        while offset < end {
            let head: RecordHeader
            do { head = try recordHeader(at: offset) } catch {
                if case .recordCutShort = error { return (offsets, offset) }
                throw error
            }
            let next = offset + UInt64(PcapFormat.recordHeaderLength) + UInt64(head.included)
            guard next <= end else { return (offsets, offset) }
            offsets.append(offset)
            offset = next
        }
        return (offsets, nil)
    }

    private struct RecordHeader {
        let timestampNanoseconds: Int64
        let included: UInt32
        let original: UInt32
    }

    private func recordHeader(at offset: UInt64) throws(CaptureReadError) -> RecordHeader {
        guard offset >= UInt64(PcapFormat.fileHeaderLength), Self.dataOffset(of: offset) != nil else {
            throw .noRecordAt(path: path, offset: offset)
        }
        guard try fill(count: PcapFormat.recordHeaderLength, at: offset) else {
            throw .recordCutShort(path: path, offset: offset)
        }
        // Read where the window holds it: no array for sixteen bytes.
        let base = Int(offset - windowStart)
        let swapped = header.isByteSwapped
        let field = { (index: Int) -> UInt32 in
            let value = self.window.littleEndianUInt32(at: base + index)
            return swapped ? value.byteSwapped : value
        }
        let included = field(8)
        guard included <= header.snapshotLength else {
            throw .recordLongerThanSnapshot(path: path, offset: offset, claimed: included)
        }
        let nanoseconds = Int64(field(0)) * 1_000_000_000 + Int64(min(field(4), 999_999)) * 1_000
        return RecordHeader(timestampNanoseconds: nanoseconds, included: included, original: field(12))
    }

    /// `count` bytes at `offset`, or nil when the file ends first. Served from the window when it
    /// holds them; otherwise the window is read again from `offset` (a file still being written
    /// may have grown since it was last read).
    private func windowed(count: Int, at offset: UInt64) throws(CaptureReadError) -> [UInt8]? {
        if count > Self.windowCapacity {
            var bytes = [UInt8](repeating: 0, count: count)
            return try Self.readFully(descriptor, into: &bytes, at: offset, path: path) == count ? bytes : nil
        }
        guard try fill(count: count, at: offset) else { return nil }
        let start = Int(offset - windowStart)
        return Array(window[start..<(start + count)])
    }

    /// Whether the window holds `count` bytes at `offset` (at most its capacity), reading it again
    /// from `offset` when it does not; false when the file ends first.
    private func fill(count: Int, at offset: UInt64) throws(CaptureReadError) -> Bool {
        if windowHolds(count: count, at: offset) { return true }
        if window.isEmpty { window = [UInt8](repeating: 0, count: Self.windowCapacity) }
        windowLength = try Self.readFully(descriptor, into: &window, at: offset, path: path)
        windowStart = offset
        return windowHolds(count: count, at: offset)
    }

    private func windowHolds(count: Int, at offset: UInt64) -> Bool {
        offset >= windowStart && offset - windowStart + UInt64(count) <= UInt64(windowLength)
    }

    private static func dataOffset(of recordOffset: UInt64) -> UInt64? {
        let (sum, overflow) = recordOffset.addingReportingOverflow(UInt64(PcapFormat.recordHeaderLength))
        return overflow || sum > UInt64(Int64.max) ? nil : sum
    }

    /// Reads until the buffer is full or the file ends; the count read.
    private static func readFully(_ descriptor: Int32, into buffer: inout [UInt8], at offset: UInt64, path: String) throws(CaptureReadError) -> Int {
        var total = 0
        while total < buffer.count {
            let position = off_t(offset) + off_t(total)
            let result = buffer.withUnsafeMutableBytes { bytes -> Int in
                guard let base = bytes.baseAddress else { return 0 }
                return pread(descriptor, base + total, bytes.count - total, position)
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: path, errno: errno)
            }
            if result == 0 { break }
            total += result
        }
        return total
    }
}

/// After a crash the last file can end inside a record; cutting that tail off makes the file
/// whole again for any pcap reader. Returns the file's length now and how many bytes were cut.
public func cutTornTail(ofCaptureFile path: String) throws(CaptureReadError) -> (length: UInt64, cut: UInt64) {
    let reader = try CaptureFileReader(path: path)
    let walk = try reader.recordOffsets()
    var size = stat()
    guard stat(path, &size) == 0 else { throw .unreadable(path: path, errno: errno) }
    let length = UInt64(max(0, size.st_size))
    guard let tail = walk.tornTailAt else { return (length, 0) }
    guard truncate(path, off_t(tail)) == 0 else { throw .unreadable(path: path, errno: errno) }
    return (tail, length - tail)
}
