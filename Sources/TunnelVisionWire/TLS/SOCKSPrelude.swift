/// The SOCKS handshakes a phone may run with a proxy before its TLS: SOCKS5 (RFC 1928, with
/// RFC 1929's username and password) and SOCKS4 with its 4a extension. Only CONNECT carries a
/// stream on; the host its request names (a domain, never an address) is what the phone
/// announced. Every length is read from the bytes and checked against what arrived.
public enum SOCKSPrelude {
    public enum ClientReading: Sendable, Hashable {
        /// Could still be SOCKS: more bytes decide.
        case needMore
        case notSOCKS
        /// A CONNECT request ends at `clientOffset`; `host` is its domain, when it named one.
        case connect(version: UInt8, clientOffset: Int, host: String?)
    }

    /// A SOCKS4 user ID or 4a domain longer than this is not a request a client sends.
    static let maximumFieldLength = 255

    public static func readClient(_ stream: UnsafeRawBufferPointer) -> ClientReading {
        switch stream.first {
        case 5: readVersion5(stream)
        case 4: readVersion4(stream)
        default: .notSOCKS
        }
    }

    /// Where the proxy's relayed bytes begin in its stream (after its method choice, the
    /// authentication status when it asked for one, and its reply); nil while they cannot be
    /// told yet, or never, for a request the proxy refused.
    public static func serverOffset(version: UInt8, in stream: UnsafeRawBufferPointer) -> Int? {
        var reader = ByteReader(stream)
        if version == 4 {
            // VN 0, CD 90 (granted), port and address.
            guard reader.u8() == 0, reader.u8() == 90, reader.skip(6) else { return nil }
            return reader.position
        }
        guard reader.u8() == 5, let method = reader.u8() else { return nil }
        switch method {
        case 0: break
        case 2:
            guard reader.u8() == 1, reader.u8() == 0 else { return nil }
        default:
            return nil  // no acceptable method, or one (GSSAPI) that wraps what follows
        }
        guard reader.u8() == 5, reader.u8() == 0, reader.u8() == 0, let kind = reader.u8(),
              let address = addressLength(kind, &reader), reader.skip(address + 2) else { return nil }
        return reader.position
    }

    // MARK: - SOCKS5

    private static func readVersion5(_ stream: UnsafeRawBufferPointer) -> ClientReading {
        var reader = ByteReader(stream)
        _ = reader.u8()
        guard let methodCount = reader.u8() else { return .needMore }
        guard methodCount > 0 else { return .notSOCKS }
        guard reader.skip(Int(methodCount)), let next = reader.peekU8() else { return .needMore }
        if next == 1 {
            // RFC 1929: version 1, then the user name and the password, each length-prefixed.
            _ = reader.u8()
            guard let user = reader.u8() else { return .needMore }
            guard user > 0 else { return .notSOCKS }
            guard reader.skip(Int(user)), let password = reader.u8() else { return .needMore }
            guard password > 0 else { return .notSOCKS }
            guard reader.skip(Int(password)) else { return .needMore }
        }
        guard let version = reader.u8() else { return .needMore }
        guard version == 5 else { return .notSOCKS }
        guard let command = reader.u8(), let reserved = reader.u8(), let kind = reader.u8() else { return .needMore }
        guard command == 1, reserved == 0 else { return .notSOCKS }
        guard let length = addressLength(kind, &reader) else {
            return kind == 3 && reader.isAtEnd ? .needMore : .notSOCKS
        }
        guard let address = reader.take(length), reader.skip(2) else { return .needMore }
        let host = kind == 3 ? HTTPRequestHost.hostName(address) : nil
        return .connect(version: 5, clientOffset: reader.position, host: host)
    }

    /// The bytes an address of RFC 1928's type takes (a domain's length byte read); nil for an
    /// unknown type or an empty domain, or a domain whose length has not arrived.
    private static func addressLength(_ kind: UInt8, _ reader: inout ByteReader) -> Int? {
        switch kind {
        case 1: return 4
        case 4: return 16
        case 3:
            guard let length = reader.u8(), length > 0 else { return nil }
            return Int(length)
        default: return nil
        }
    }

    // MARK: - SOCKS4 and 4a

    private static func readVersion4(_ stream: UnsafeRawBufferPointer) -> ClientReading {
        var reader = ByteReader(stream)
        _ = reader.u8()
        guard let command = reader.u8() else { return .needMore }
        guard command == 1 else { return .notSOCKS }
        guard reader.skip(2), let address = reader.take(4) else { return .needMore }
        guard let userEnd = terminator(in: stream, from: reader.position) else {
            return stream.count - reader.position > maximumFieldLength ? .notSOCKS : .needMore
        }
        // 4a: an address of 0.0.0.x (x not 0) says a domain follows the user ID.
        guard address[0] == 0, address[1] == 0, address[2] == 0, address[3] != 0 else {
            return .connect(version: 4, clientOffset: userEnd + 1, host: nil)
        }
        guard let domainEnd = terminator(in: stream, from: userEnd + 1) else {
            return stream.count - userEnd - 1 > maximumFieldLength ? .notSOCKS : .needMore
        }
        let domain = stream.slice(from: userEnd + 1, count: domainEnd - userEnd - 1)
        return .connect(version: 4, clientOffset: domainEnd + 1, host: domain.flatMap(HTTPRequestHost.hostName))
    }

    /// The offset of the NUL that ends a field starting at `start`, within the field bound.
    private static func terminator(in stream: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        while index < stream.count, index - start <= maximumFieldLength {
            if stream[index] == 0 { return index }
            index += 1
        }
        return nil
    }
}
