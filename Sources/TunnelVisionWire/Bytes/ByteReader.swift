/// A cursor over borrowed packet bytes. Every read checks what is left and answers nil when the
/// input is shorter than it claims, so a parser never traps on hostile lengths.
///
/// The reader does not own its bytes: it lives no longer than the buffer it was made over.
public struct ByteReader {
    public let bytes: UnsafeRawBufferPointer
    public private(set) var position: Int

    public init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        self.position = 0
    }

    public var remaining: Int { bytes.count - position }
    public var isAtEnd: Bool { position >= bytes.count }

    /// The unread bytes, without moving.
    public var rest: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[position...])
    }

    public func peekU8(at offset: Int = 0) -> UInt8? {
        guard offset >= 0, offset < remaining else { return nil }
        return bytes[position + offset]
    }

    public mutating func u8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    public mutating func u16() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { position += 2 }
        return UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
    }

    public mutating func u24() -> Int? {
        guard remaining >= 3 else { return nil }
        defer { position += 3 }
        return Int(bytes[position]) << 16 | Int(bytes[position + 1]) << 8 | Int(bytes[position + 2])
    }

    public mutating func u32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { position += 4 }
        return UInt32(bytes[position]) << 24 | UInt32(bytes[position + 1]) << 16
            | UInt32(bytes[position + 2]) << 8 | UInt32(bytes[position + 3])
    }

    /// A QUIC variable-length integer (RFC 9000 § 16).
    public mutating func varint() -> UInt64? {
        guard let first = peekU8() else { return nil }
        let length = 1 << Int(first >> 6)
        guard remaining >= length else { return nil }
        var value = UInt64(first & 0x3F)
        for index in 1..<length {
            value = value << 8 | UInt64(bytes[position + index])
        }
        position += length
        return value
    }

    /// The next `count` bytes as their own view; nil when fewer are left.
    public mutating func take(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, count <= remaining else { return nil }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<position + count])
    }

    /// A view of the next bytes whose length is given by a `lengthBytes`-wide big-endian prefix.
    public mutating func takeLengthPrefixed(lengthBytes: Int) -> UnsafeRawBufferPointer? {
        let saved = position
        let length: Int?
        switch lengthBytes {
        case 1: length = u8().map(Int.init)
        case 2: length = u16().map(Int.init)
        case 3: length = u24()
        default: length = nil
        }
        guard let length, let body = take(length) else {
            position = saved
            return nil
        }
        return body
    }

    @discardableResult
    public mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= remaining else { return false }
        position += count
        return true
    }
}

extension UnsafeRawBufferPointer {
    /// A sub-view, or nil when the range does not lie inside.
    public func slice(from start: Int, count: Int) -> UnsafeRawBufferPointer? {
        guard start >= 0, count >= 0, start <= self.count, count <= self.count - start else { return nil }
        return UnsafeRawBufferPointer(rebasing: self[start..<start + count])
    }

    public func slice(from start: Int) -> UnsafeRawBufferPointer? {
        slice(from: start, count: self.count - start)
    }
}
