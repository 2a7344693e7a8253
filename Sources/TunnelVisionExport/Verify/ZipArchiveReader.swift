import CZlib
import Foundation

/// Reads a .zip someone handed us (PKWARE APPNOTE 6.3: the end records, zip64 where they say so,
/// the central directory, each member's local header), refusing rather than guessing: every
/// length is checked against the file, members may not overlap, and a member is inflated only up
/// to the size its header gives, so that a lying header cannot make us read or allocate more.
/// Nothing is written anywhere: members are handed to the caller piece by piece.
final class ZipArchiveReader {
    struct Member: Sendable, Hashable {
        let name: String
        let method: UInt16
        let crc: UInt32
        let compressedCount: UInt64
        let byteCount: UInt64
        let headerOffset: UInt64
        /// Where its bytes begin, after the local header.
        let dataOffset: UInt64
        let isDirectory: Bool
    }

    enum Failure: Error, Sendable, Hashable {
        case unreadable(String)
        case notAZip
        case damaged(String)
        /// A header gives a size past what the archive holds (the "4 GiB member" of a hostile zip).
        case sizeBeyondArchive(name: String, claimed: UInt64, archive: UInt64)
        case unsupported(name: String, what: String)
        case crcMismatch(name: String)
        case lengthMismatch(name: String)
    }

    static let maximumMembers = 4096
    static let maximumDirectory: UInt64 = 16 << 20

    let path: String
    let size: UInt64
    private let descriptor: Int32
    private(set) var members: [Member] = []

    init(path: String) throws(Failure) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(String(cString: strerror(errno))) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw .unreadable("not a regular file")
        }
        self.path = path
        self.descriptor = descriptor
        size = UInt64(status.st_size)
        members = try readDirectory()
    }

    deinit {
        close(descriptor)
    }

    /// Hands `member`'s bytes, as stored or inflated, to `consume`, and checks their count and CRC-32.
    func read(_ member: Member, _ consume: (UnsafeRawBufferPointer) throws -> Void) throws {
        var crc = crc32_z(0, nil, 0)
        var produced: UInt64 = 0
        let deliver = { (bytes: UnsafeRawBufferPointer) throws in
            produced += UInt64(bytes.count)
            guard produced <= member.byteCount else { throw Failure.lengthMismatch(name: member.name) }
            crc = crc32_z(crc, bytes.bindMemory(to: Bytef.self).baseAddress, bytes.count)
            try consume(bytes)
        }
        if member.method == 0 {
            try chunks(of: member, deliver)
        } else {
            try inflate(member, deliver)
        }
        guard produced == member.byteCount else { throw Failure.lengthMismatch(name: member.name) }
        guard UInt32(truncatingIfNeeded: crc) == member.crc else { throw Failure.crcMismatch(name: member.name) }
    }

    /// A small member whole (the manifest, a signature); refused past `limit`.
    func contents(of member: Member, limit: UInt64 = 16 << 20) throws -> [UInt8] {
        guard member.byteCount <= limit else { throw Failure.unsupported(name: member.name, what: "more than \(limit) bytes") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(member.byteCount))
        try read(member) { bytes.append(contentsOf: $0) }
        return bytes
    }

    // MARK: The directory

    private func readDirectory() throws(Failure) -> [Member] {
        guard size >= 22 else { throw .notAZip }
        let tailLength = min(size, 22 + 0xFFFF)
        let tail = try bytes(at: size - tailLength, count: Int(tailLength))
        guard let end = Self.lastIndex(of: 0x0605_4B50, in: tail, from: tail.count - 22) else { throw .notAZip }
        let endOffset = size - tailLength + UInt64(end)
        var entries = UInt64(tail.uint16(at: end + 10))
        var directorySize = UInt64(tail.uint32(at: end + 12))
        var directoryOffset = UInt64(tail.uint32(at: end + 16))
        guard tail.uint16(at: end + 4) == 0, tail.uint16(at: end + 6) == 0 else { throw .unsupported(name: "", what: "a split archive") }
        var directoryLimit = endOffset
        if entries == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            guard endOffset >= 20 else { throw .damaged("the zip64 end locator is missing") }
            let locator = try bytes(at: endOffset - 20, count: 20)
            guard locator.uint32(at: 0) == 0x0706_4B50 else { throw .damaged("the zip64 end locator is missing") }
            let recordOffset = locator.uint64(at: 8)
            guard recordOffset <= endOffset - 20, endOffset - 20 - recordOffset >= 56 else { throw .damaged("the zip64 end record lies outside the archive") }
            let record = try bytes(at: recordOffset, count: 56)
            guard record.uint32(at: 0) == 0x0606_4B50 else { throw .damaged("the zip64 end record is missing") }
            entries = record.uint64(at: 32)
            directorySize = record.uint64(at: 40)
            directoryOffset = record.uint64(at: 48)
            directoryLimit = recordOffset
        }
        guard entries <= UInt64(Self.maximumMembers) else { throw .unsupported(name: "", what: "\(entries) members") }
        guard directorySize <= Self.maximumDirectory, directoryOffset <= directoryLimit, directorySize <= directoryLimit - directoryOffset else {
            throw .damaged("the central directory lies outside the archive")
        }
        let directory = try bytes(at: directoryOffset, count: Int(directorySize))
        var members: [Member] = []
        var cursor = 0
        for _ in 0..<entries {
            let (member, next) = try centralEntry(in: directory, at: cursor, dataLimit: directoryOffset)
            members.append(member)
            cursor = next
        }
        guard cursor == directory.count else { throw .damaged("the central directory holds more than its entries") }
        // Two members sharing bytes are one file under two names: refused.
        let ordered = members.sorted { $0.headerOffset < $1.headerOffset }
        for (earlier, later) in zip(ordered, ordered.dropFirst()) where earlier.dataOffset + earlier.compressedCount > later.headerOffset {
            throw .damaged("members \(earlier.name) and \(later.name) overlap")
        }
        return members
    }

    private func centralEntry(in directory: [UInt8], at start: Int, dataLimit: UInt64) throws(Failure) -> (Member, Int) {
        guard start + 46 <= directory.count, directory.uint32(at: start) == 0x0201_4B50 else {
            throw .damaged("a central directory entry is cut short")
        }
        let flags = directory.uint16(at: start + 8)
        let method = directory.uint16(at: start + 10)
        let crc = directory.uint32(at: start + 16)
        var compressed = UInt64(directory.uint32(at: start + 20))
        var uncompressed = UInt64(directory.uint32(at: start + 24))
        let nameLength = Int(directory.uint16(at: start + 28))
        let extraLength = Int(directory.uint16(at: start + 30))
        let commentLength = Int(directory.uint16(at: start + 32))
        var offset = UInt64(directory.uint32(at: start + 42))
        let next = start + 46 + nameLength + extraLength + commentLength
        guard next <= directory.count else { throw .damaged("a central directory entry is cut short") }
        let nameBytes = Array(directory[(start + 46)..<(start + 46 + nameLength)])
        guard let name = String(validating: nameBytes, as: UTF8.self) else { throw .damaged("a member's name is not UTF-8") }
        // zip64: the fields that read 0xFFFFFFFF follow in the extra field 0x0001, in this order.
        var extra = start + 46 + nameLength
        let extraEnd = extra + extraLength
        while extra + 4 <= extraEnd {
            let tag = directory.uint16(at: extra), length = Int(directory.uint16(at: extra + 2))
            guard extra + 4 + length <= extraEnd else { throw .damaged("\(name): its extra field is cut short") }
            if tag == 1 {
                var field = extra + 4
                let fieldEnd = extra + 4 + length
                func next() throws(Failure) -> UInt64 {
                    guard field + 8 <= fieldEnd else { throw .damaged("\(name): its zip64 field is cut short") }
                    defer { field += 8 }
                    return directory.uint64(at: field)
                }
                if uncompressed == 0xFFFF_FFFF { uncompressed = try next() }
                if compressed == 0xFFFF_FFFF { compressed = try next() }
                if offset == 0xFFFF_FFFF { offset = try next() }
            }
            extra += 4 + length
        }
        guard flags & 1 == 0 else { throw .unsupported(name: name, what: "encryption") }
        guard method == 0 || method == 8 else { throw .unsupported(name: name, what: "compression method \(method)") }
        // The member's bytes must lie before the central directory: a size past that is a lie.
        guard offset <= dataLimit, dataLimit - offset >= 30 else { throw .damaged("\(name): its local header lies outside the archive") }
        let local = try bytes(at: offset, count: 30)
        guard local.uint32(at: 0) == 0x0403_4B50 else { throw .damaged("\(name): its local header is missing") }
        let localName = UInt64(local.uint16(at: 26)), localExtra = UInt64(local.uint16(at: 28))
        let dataOffset = offset + 30 + localName + localExtra
        guard dataOffset <= dataLimit, try bytes(at: offset + 30, count: Int(localName)) == nameBytes else {
            throw .damaged("\(name): its local header names another file")
        }
        guard compressed <= dataLimit - dataOffset else { throw .sizeBeyondArchive(name: name, claimed: compressed, archive: size) }
        // Deflate shrinks by at most about 1032 to 1; a stored member is its own size.
        let bound = method == 0 ? compressed : compressed.multipliedReportingOverflow(by: 1032).partialValue + 1024
        guard uncompressed <= bound else { throw .sizeBeyondArchive(name: name, claimed: uncompressed, archive: size) }
        let member = Member(
            name: name, method: method, crc: crc, compressedCount: compressed, byteCount: uncompressed, headerOffset: offset,
            dataOffset: dataOffset, isDirectory: name.hasSuffix("/"))
        return (member, next)
    }

    // MARK: Bytes

    private func bytes(at offset: UInt64, count: Int) throws(Failure) -> [UInt8] {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else { throw .damaged("a record lies past the end of the archive") }
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            guard read > 0 else { throw .unreadable(read < 0 ? String(cString: strerror(errno)) : "the archive ended early") }
            done += read
        }
        return buffer
    }

    private func chunks(of member: Member, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        var offset = member.dataOffset
        var left = member.compressedCount
        while left > 0 {
            let count = Int(min(left, 1 << 20))
            let chunk = try bytes(at: offset, count: count)
            try chunk.withUnsafeBytes { try body($0) }
            offset += UInt64(count)
            left -= UInt64(count)
        }
    }

    private func inflate(_ member: Member, _ deliver: (UnsafeRawBufferPointer) throws -> Void) throws {
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure.damaged("\(member.name): zlib did not start")
        }
        defer { inflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: 1 << 18)
        var ended = false
        try chunks(of: member) { input in
            guard !ended else { throw Failure.damaged("\(member.name): bytes follow the end of its deflate stream") }
            stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(input.count)
            repeat {
                let (status, produced) = output.withUnsafeMutableBytes { out -> (Int32, Int) in
                    stream.next_out = out.bindMemory(to: Bytef.self).baseAddress
                    stream.avail_out = uInt(out.count)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (status, out.count - Int(stream.avail_out))
                }
                guard status == Z_OK || status == Z_STREAM_END || (status == Z_BUF_ERROR && produced == 0) else {
                    throw Failure.damaged("\(member.name): its deflate stream is damaged")
                }
                try output.withUnsafeBytes { try deliver(UnsafeRawBufferPointer(rebasing: $0[0..<produced])) }
                if status == Z_STREAM_END { ended = true; break }
                if status == Z_BUF_ERROR { break }
            } while stream.avail_in > 0 || stream.avail_out == 0
        }
        guard ended || member.compressedCount == 0 && member.byteCount == 0 else {
            throw Failure.damaged("\(member.name): its deflate stream ends early")
        }
    }

    private static func lastIndex(of signature: UInt32, in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index >= 0 {
            if bytes.uint32(at: index) == signature { return index }
            index -= 1
        }
        return nil
    }
}

private extension Array where Element == UInt8 {
    func uint16(at index: Int) -> UInt16 { UInt16(self[index]) | UInt16(self[index + 1]) << 8 }
    func uint32(at index: Int) -> UInt32 { UInt32(uint16(at: index)) | UInt32(uint16(at: index + 2)) << 16 }
    func uint64(at index: Int) -> UInt64 { UInt64(uint32(at: index)) | UInt64(uint32(at: index + 4)) << 32 }
}
