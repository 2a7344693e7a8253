import CZlib
import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionDigest
import TunnelVisionEvidence

/// A .zip written front to back in one pass (PKWARE APPNOTE 6.3: local headers, the central
/// directory, zip64 where a size or an offset passes 32 bits). Each member's bytes go into the
/// file as they are made, with their CRC-32 and SHA-256 taken on the way: a capture of hundreds
/// of megabytes is written once, not written and then read back and copied by a zip library.
/// Created exclusively; removed again unless it is finished.
final class ZipArchiveWriter {
    struct Failure: Error, Sendable, Hashable {
        let reason: String
    }

    enum Method {
        /// Copied as it is: what is already compressed or does not compress.
        case stored
        /// Deflated at zlib's fastest level: text shrinks almost as much as at the default.
        case deflated
    }

    /// What the archive holds of one member once it is written.
    struct Written {
        let byteCount: UInt64
        let compressedCount: UInt64
        let sha256: String
    }

    private struct CentralEntry {
        let name: [UInt8]
        let flags: UInt16
        let method: UInt16
        let crc: UInt32
        let compressedCount: UInt64
        let byteCount: UInt64
        let headerOffset: UInt64
        let mode: mode_t
    }

    let path: String
    private var descriptor: Int32
    private var position: UInt64 = 0
    private var central: [CentralEntry] = []
    private let dosTime: UInt16
    private let dosDate: UInt16

    init(path: String, modifiedAt: Date) throws(Failure) {
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure(reason: "\(path): \(String(cString: strerror(errno)))") }
        self.path = path
        self.descriptor = descriptor
        (dosTime, dosDate) = Self.dosStamp(modifiedAt)
    }

    deinit {
        if descriptor >= 0 {
            Glibc.close(descriptor)
            unlink(path)
        }
    }

    func addDirectory(_ name: String, mode: mode_t) throws {
        let offset = position
        let name = Array((name.hasSuffix("/") ? name : name + "/").utf8)
        try append(localHeader(name: name, flags: Self.utf8Flag, method: 0, zip64: false))
        central.append(CentralEntry(
            name: name, flags: Self.utf8Flag, method: 0, crc: 0, compressedCount: 0, byteCount: 0, headerOffset: offset, mode: mode))
    }

    /// Writes one member: `body` writes its bytes into the output it is handed. Unless
    /// `mayPass4GiB`, a member of 4 GiB or more is refused rather than written wrong; with it, the
    /// local header carries zip64 sizes whatever the member's size turns out to be.
    func addMember<Result>(
        _ name: String, method: Method, mode: mode_t, mayPass4GiB: Bool = false,
        _ body: (ZipMemberOutput) throws -> Result
    ) throws -> (Result, Written) {
        let offset = position
        let nameBytes = Array(name.utf8)
        let flags = Self.utf8Flag | (method == .deflated ? Self.fastDeflateFlag : 0)
        let methodCode: UInt16 = method == .deflated ? 8 : 0
        try append(localHeader(name: nameBytes, flags: flags, method: methodCode, zip64: mayPass4GiB))
        let output = try ZipMemberOutput(descriptor: descriptor, path: path, deflating: method == .deflated)
        let result = try body(output)
        let counts = try output.finish()
        position += counts.compressed
        guard mayPass4GiB || (counts.compressed < 0xFFFF_FFFF && counts.uncompressed < 0xFFFF_FFFF) else {
            throw Failure(reason: "\(name): \(counts.uncompressed) bytes, past the 4 GiB a member without zip64 may hold")
        }
        // The sizes and the CRC are known only now: put in place in the header already written.
        var patch: [UInt8] = []
        patch.appendLittleEndian(counts.crc)
        patch.appendLittleEndian(mayPass4GiB ? UInt32.max : UInt32(counts.compressed))
        patch.appendLittleEndian(mayPass4GiB ? UInt32.max : UInt32(counts.uncompressed))
        try write(patch, at: offset + 14)
        if mayPass4GiB {
            var sizes: [UInt8] = []
            sizes.appendLittleEndian(counts.uncompressed)
            sizes.appendLittleEndian(counts.compressed)
            try write(sizes, at: offset + 30 + UInt64(nameBytes.count) + 4)
        }
        central.append(CentralEntry(
            name: nameBytes, flags: flags, method: methodCode, crc: counts.crc, compressedCount: counts.compressed,
            byteCount: counts.uncompressed, headerOffset: offset, mode: mode))
        return (result, Written(byteCount: counts.uncompressed, compressedCount: counts.compressed, sha256: counts.sha256))
    }

    /// The central directory, its entries sorted by name whatever order they were written in,
    /// and the end records; then the file is closed.
    func finish() throws {
        let start = position
        var directory: [UInt8] = []
        for entry in central.sorted(by: { $0.name.lexicographicallyPrecedes($1.name) }) {
            directory += centralHeader(entry)
        }
        let size = UInt64(directory.count)
        let count = UInt64(central.count)
        let needsZip64 = start >= 0xFFFF_FFFF || size >= 0xFFFF_FFFF || count >= 0xFFFF
        if needsZip64 {
            let record = start + size
            directory.appendLittleEndian(UInt32(0x0606_4B50))
            directory.appendLittleEndian(UInt64(44))
            directory.appendLittleEndian(Self.madeBy(45))
            directory.appendLittleEndian(UInt16(45))
            directory.appendLittleEndian(UInt32(0))
            directory.appendLittleEndian(UInt32(0))
            directory.appendLittleEndian(count)
            directory.appendLittleEndian(count)
            directory.appendLittleEndian(size)
            directory.appendLittleEndian(start)
            directory.appendLittleEndian(UInt32(0x0706_4B50))
            directory.appendLittleEndian(UInt32(0))
            directory.appendLittleEndian(record)
            directory.appendLittleEndian(UInt32(1))
        }
        directory.appendLittleEndian(UInt32(0x0605_4B50))
        directory.appendLittleEndian(UInt16(0))
        directory.appendLittleEndian(UInt16(0))
        directory.appendLittleEndian(UInt16(min(count, 0xFFFF)))
        directory.appendLittleEndian(UInt16(min(count, 0xFFFF)))
        directory.appendLittleEndian(UInt32(min(size, 0xFFFF_FFFF)))
        directory.appendLittleEndian(UInt32(min(start, 0xFFFF_FFFF)))
        directory.appendLittleEndian(UInt16(0))
        try append(directory)
        let closed = Glibc.close(descriptor)
        descriptor = -1
        guard closed == 0 else {
            unlink(path)
            throw Failure(reason: "\(path): \(String(cString: strerror(errno)))")
        }
    }

    // MARK: Records

    static let utf8Flag: UInt16 = 1 << 11
    /// Bits 1–2 of a deflated member: 10, compressed at a fast level.
    static let fastDeflateFlag: UInt16 = 1 << 2

    private func localHeader(name: [UInt8], flags: UInt16, method: UInt16, zip64: Bool) -> [UInt8] {
        var header: [UInt8] = []
        header.appendLittleEndian(UInt32(0x0403_4B50))
        header.appendLittleEndian(UInt16(zip64 ? 45 : 20))
        header.appendLittleEndian(flags)
        header.appendLittleEndian(method)
        header.appendLittleEndian(dosTime)
        header.appendLittleEndian(dosDate)
        header.appendLittleEndian(UInt32(0))
        header.appendLittleEndian(zip64 ? UInt32.max : 0)
        header.appendLittleEndian(zip64 ? UInt32.max : 0)
        header.appendLittleEndian(UInt16(name.count))
        header.appendLittleEndian(UInt16(zip64 ? 20 : 0))
        header += name
        if zip64 {
            header.appendLittleEndian(UInt16(0x0001))
            header.appendLittleEndian(UInt16(16))
            header += [UInt8](repeating: 0, count: 16)
        }
        return header
    }

    private func centralHeader(_ entry: CentralEntry) -> [UInt8] {
        // Only the fields that do not fit 32 bits go into the zip64 extra field, in this order.
        var extra: [UInt8] = []
        if entry.byteCount >= 0xFFFF_FFFF { extra.appendLittleEndian(entry.byteCount) }
        if entry.compressedCount >= 0xFFFF_FFFF { extra.appendLittleEndian(entry.compressedCount) }
        if entry.headerOffset >= 0xFFFF_FFFF { extra.appendLittleEndian(entry.headerOffset) }
        let version: UInt16 = extra.isEmpty ? 20 : 45
        var header: [UInt8] = []
        header.appendLittleEndian(UInt32(0x0201_4B50))
        header.appendLittleEndian(Self.madeBy(version))
        header.appendLittleEndian(version)
        header.appendLittleEndian(entry.flags)
        header.appendLittleEndian(entry.method)
        header.appendLittleEndian(dosTime)
        header.appendLittleEndian(dosDate)
        header.appendLittleEndian(entry.crc)
        header.appendLittleEndian(UInt32(min(entry.compressedCount, 0xFFFF_FFFF)))
        header.appendLittleEndian(UInt32(min(entry.byteCount, 0xFFFF_FFFF)))
        header.appendLittleEndian(UInt16(entry.name.count))
        header.appendLittleEndian(UInt16(extra.isEmpty ? 0 : extra.count + 4))
        header.appendLittleEndian(UInt16(0))
        header.appendLittleEndian(UInt16(0))
        header.appendLittleEndian(UInt16(0))
        // Unix mode bits in the high half, so that unzip gives each path its mode.
        header.appendLittleEndian(UInt32(entry.mode) << 16)
        header.appendLittleEndian(UInt32(min(entry.headerOffset, 0xFFFF_FFFF)))
        header += entry.name
        if !extra.isEmpty {
            header.appendLittleEndian(UInt16(0x0001))
            header.appendLittleEndian(UInt16(extra.count))
            header += extra
        }
        return header
    }

    /// Made on Unix (3), so that readers take the external attributes as a mode.
    private static func madeBy(_ version: UInt16) -> UInt16 { 3 << 8 | version }

    /// MS-DOS time and date in local time, as zip(1) and libzip write them: two-second steps,
    /// nothing before 1980.
    static func dosStamp(_ date: Date) -> (time: UInt16, date: UInt16) {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil, parts.tm_year >= 80 else { return (0, 0x21) }
        let time = UInt16(parts.tm_hour) << 11 | UInt16(parts.tm_min) << 5 | UInt16(parts.tm_sec / 2)
        let day = UInt16(min(parts.tm_year - 80, 127)) << 9 | UInt16(parts.tm_mon + 1) << 5 | UInt16(parts.tm_mday)
        return (time, day)
    }

    // MARK: Writing

    private func append(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try ZipMemberOutput.writeAll($0, to: descriptor, path: path) }
        position += UInt64(bytes.count)
    }

    private func write(_ bytes: [UInt8], at offset: UInt64) throws {
        let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
        guard written == bytes.count else { throw Failure(reason: "\(path): \(String(cString: strerror(errno)))") }
    }
}

/// The bytes of one member on their way into the archive: gathered into writes of a mebibyte,
/// each hashed (SHA-256 for the manifest, CRC-32 for the zip) and then written as it is or deflated.
final class ZipMemberOutput: EvidenceOutput {
    private let descriptor: Int32
    private let path: String
    private var buffer: [UInt8] = []
    private let hasher = SHA256Hasher()
    private var crc: UInt = 0
    private var uncompressed: UInt64 = 0
    private var compressed: UInt64 = 0
    private var stream: UnsafeMutablePointer<z_stream>?
    private var deflated: [UInt8] = []
    static let bufferSize = 1 << 20

    fileprivate init(descriptor: Int32, path: String, deflating: Bool) throws {
        self.descriptor = descriptor
        self.path = path
        buffer.reserveCapacity(Self.bufferSize + Self.bufferSize / 4)
        guard deflating else { return }
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // Raw deflate (negative window bits): the zip's own headers frame it.
        guard deflateInit2_(stream, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            stream.deallocate()
            throw ZipArchiveWriter.Failure(reason: "zlib could not start deflating")
        }
        self.stream = stream
        deflated = [UInt8](repeating: 0, count: 1 << 18)
    }

    deinit { end() }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// Lets `body` append to the buffer in place: a capture's blocks are built where they are written from.
    func append(_ body: (inout [UInt8]) -> Void) throws {
        body(&buffer)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    fileprivate func finish() throws -> (crc: UInt32, uncompressed: UInt64, compressed: UInt64, sha256: String) {
        try flush()
        if stream != nil { try deflate(nil, finishing: true) }
        end()
        return (UInt32(truncatingIfNeeded: crc), uncompressed, compressed, hasher.finish())
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { bytes in
            hasher.update(bytes)
            crc = crc32_z(crc, bytes.bindMemory(to: Bytef.self).baseAddress, bytes.count)
            uncompressed += UInt64(bytes.count)
            if stream != nil {
                try deflate(bytes, finishing: false)
            } else {
                try Self.writeAll(bytes, to: descriptor, path: path)
                compressed += UInt64(bytes.count)
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    private func deflate(_ bytes: UnsafeRawBufferPointer?, finishing: Bool) throws {
        guard let stream else { return }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: bytes?.bindMemory(to: Bytef.self).baseAddress)
        stream.pointee.avail_in = UInt32(bytes?.count ?? 0)
        let capacity = deflated.count
        while true {
            let (status, produced) = deflated.withUnsafeMutableBytes { out -> (Int32, Int) in
                stream.pointee.next_out = out.bindMemory(to: Bytef.self).baseAddress
                stream.pointee.avail_out = UInt32(capacity)
                let status = CZlib.deflate(stream, finishing ? Z_FINISH : Z_NO_FLUSH)
                return (status, capacity - Int(stream.pointee.avail_out))
            }
            guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                throw ZipArchiveWriter.Failure(reason: "\(path): deflate failed (\(status))")
            }
            if produced > 0 {
                try deflated.withUnsafeBytes { out in
                    try Self.writeAll(UnsafeRawBufferPointer(rebasing: out[..<produced]), to: descriptor, path: path)
                }
                compressed += UInt64(produced)
            }
            if finishing ? status == Z_STREAM_END : (stream.pointee.avail_in == 0 && produced < capacity) { return }
        }
    }

    private func end() {
        guard let stream else { return }
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        self.stream = nil
    }

    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String) throws {
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let written = Glibc.write(descriptor, base + done, bytes.count - done)
            if written < 0 {
                if errno == EINTR { continue }
                throw ZipArchiveWriter.Failure(reason: "\(path): \(String(cString: strerror(errno)))")
            }
            done += written
        }
    }
}
