import TunnelVisionModel

/// The PROXY protocol header (HAProxy's specification, versions 1 and 2) that a load balancer or
/// relay puts in front of a stream it passes on: one header naming the connection it took in
/// (source and destination), then the relayed bytes. A capture between such a relay and its
/// backend shows the header before the ClientHello. Every length is read from the bytes and
/// checked against what arrived.
public enum PROXYPrelude {
    public enum ClientReading: Sendable, Hashable {
        /// Could still be a PROXY header: more bytes decide.
        case needMore
        case notPROXY
        /// A header that ends at `clientOffset`.
        case header(ProxyProtocolAnnouncement, clientOffset: Int)
    }

    /// Version 2's twelve-byte signature.
    static let signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]
    static let textPrefix = Array("PROXY ".utf8)
    /// Version 1's longest line, CRLF included (the specification's bound).
    static let maximumTextLength = 107

    public static func readClient(_ stream: UnsafeRawBufferPointer) -> ClientReading {
        if startsAsPrefix(stream, of: signature) { return readVersion2(stream) }
        if startsAsPrefix(stream, of: textPrefix) { return readVersion1(stream) }
        return .notPROXY
    }

    /// Whether the stream and `prefix` agree over what both hold, and the stream is long enough to
    /// go on (else `needMore` follows from the callers).
    private static func startsAsPrefix(_ stream: UnsafeRawBufferPointer, of prefix: [UInt8]) -> Bool {
        let count = min(stream.count, prefix.count)
        return count > 0 && stream.prefix(count).elementsEqual(prefix.prefix(count))
    }

    // MARK: - Version 1: one text line

    private static func readVersion1(_ stream: UnsafeRawBufferPointer) -> ClientReading {
        var end: Int?
        for index in 0..<min(stream.count, maximumTextLength) where stream[index] == 0x0A {
            end = index
            break
        }
        guard let end else { return stream.count >= maximumTextLength ? .notPROXY : .needMore }
        guard end >= 1, stream[end - 1] == 0x0D, let line = stream.slice(from: 0, count: end - 1),
              line.allSatisfy({ (0x20...0x7E).contains($0) }) else { return .notPROXY }
        let words = line.split(separator: 0x20, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard words.count >= 2, words[0] == "PROXY" else { return .notPROXY }
        // UNKNOWN: the relay could not tell; whatever follows on the line is to be ignored.
        if words[1] == "UNKNOWN" {
            return .header(ProxyProtocolAnnouncement(version: 1, source: nil, destination: nil), clientOffset: end + 1)
        }
        guard words.count == 6, let family = ["TCP4": IPAddress.Family.v4, "TCP6": .v6][words[1]],
              let source = IPAddress(words[2]), let destination = IPAddress(words[3]),
              source.family == family, destination.family == family,
              let sourcePort = port(words[4]), let destinationPort = port(words[5]) else { return .notPROXY }
        return .header(ProxyProtocolAnnouncement(
            version: 1, source: Endpoint(address: source, port: sourcePort),
            destination: Endpoint(address: destination, port: destinationPort)), clientOffset: end + 1)
    }

    /// A port in decimal, as the specification writes it: 1 to 5 digits, at most 65,535.
    private static func port(_ text: String) -> UInt16? {
        guard (1...5).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return UInt16(text)
    }

    // MARK: - Version 2: binary

    private static func readVersion2(_ stream: UnsafeRawBufferPointer) -> ClientReading {
        var reader = ByteReader(stream)
        guard reader.skip(signature.count), let versionAndCommand = reader.u8(), let familyAndProtocol = reader.u8(),
              let length = reader.u16() else { return .needMore }
        // Version 2; command LOCAL (0, the relay's own health check) or PROXY (1).
        let command = versionAndCommand & 0x0F
        guard versionAndCommand >> 4 == 2, command <= 1 else { return .notPROXY }
        guard let block = reader.take(Int(length)) else { return .needMore }
        let clientOffset = reader.position
        let unnamed = ProxyProtocolAnnouncement(version: 2, source: nil, destination: nil)
        guard command == 1 else { return .header(unnamed, clientOffset: clientOffset) }
        var addresses = ByteReader(block)
        let family = familyAndProtocol >> 4
        switch family {
        case 1:
            guard let source = addresses.u32(), let destination = addresses.u32(),
                  let sourcePort = addresses.u16(), let destinationPort = addresses.u16() else { return .notPROXY }
            return .header(ProxyProtocolAnnouncement(
                version: 2, source: Endpoint(address: IPAddress(v4: source), port: sourcePort),
                destination: Endpoint(address: IPAddress(v4: destination), port: destinationPort)), clientOffset: clientOffset)
        case 2:
            guard let source = addresses.take(16).flatMap({ IPAddress(bytes: $0) }),
                  let destination = addresses.take(16).flatMap({ IPAddress(bytes: $0) }),
                  let sourcePort = addresses.u16(), let destinationPort = addresses.u16() else { return .notPROXY }
            return .header(ProxyProtocolAnnouncement(
                version: 2, source: Endpoint(address: source, port: sourcePort),
                destination: Endpoint(address: destination, port: destinationPort)), clientOffset: clientOffset)
        case 0, 3:
            // Unspecified, or UNIX sockets: no network address is announced.
            return .header(unnamed, clientOffset: clientOffset)
        default:
            return .notPROXY
        }
    }
}
