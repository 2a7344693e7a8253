import TunnelVisionModel
import TunnelVisionWire

/// Composes raw-IP packets (IPv4 or IPv6 with TCP or UDP) and TLS handshake records: what the
/// synthetic capture generator and the engine's tests feed the parsers. Checksums stay zero,
/// which no parser here reads.
public enum PacketBuilder {
    public static func tcp(
        from source: Endpoint, to destination: Endpoint, sequence: UInt32, acknowledgement: UInt32 = 0,
        flags: TCPFlags, payload: [UInt8] = []
    ) -> [UInt8] {
        var segment: [UInt8] = []
        segment.appendBigEndian(source.port)
        segment.appendBigEndian(destination.port)
        segment.appendBigEndian(sequence)
        segment.appendBigEndian(acknowledgement)
        segment += [0x50, flags.rawValue, 0xFF, 0xFF, 0, 0, 0, 0]
        return ip(from: source.address, to: destination.address, proto: .tcp, payload: segment + payload)
    }

    public static func udp(from source: Endpoint, to destination: Endpoint, payload: [UInt8]) -> [UInt8] {
        var datagram: [UInt8] = []
        datagram.appendBigEndian(source.port)
        datagram.appendBigEndian(destination.port)
        datagram.appendBigEndian(UInt16(truncatingIfNeeded: 8 + payload.count))
        datagram += [0, 0]
        return ip(from: source.address, to: destination.address, proto: .udp, payload: datagram + payload)
    }

    public static func ip(from source: IPAddress, to destination: IPAddress, proto: TransportProtocol, payload: [UInt8]) -> [UInt8] {
        var packet: [UInt8]
        if source.family == .v4 {
            packet = [0x45, 0]
            packet.appendBigEndian(UInt16(truncatingIfNeeded: 20 + payload.count))
            packet += [0, 0, 0x40, 0, 64, proto.rawValue, 0, 0]
        } else {
            packet = [0x60, 0, 0, 0]
            packet.appendBigEndian(UInt16(truncatingIfNeeded: payload.count))
            packet += [proto.rawValue, 64]
        }
        packet += source.bytes
        packet += destination.bytes
        return packet + payload
    }

    /// A handshake message in one TLS record.
    public static func handshakeRecord(type: UInt8, body: [UInt8], recordVersion: UInt16 = 0x0301) -> [UInt8] {
        var message: [UInt8] = [type]
        message.appendBigEndian24(body.count)
        message += body
        var record: [UInt8] = [22]
        record.appendBigEndian(recordVersion)
        record.appendBigEndian(UInt16(truncatingIfNeeded: message.count))
        return record + message
    }

    /// A ClientHello body with the given extensions (type, data), in order.
    public static func clientHelloBody(legacyVersion: UInt16 = 0x0303, extensions: [(UInt16, [UInt8])]?) -> [UInt8] {
        var body: [UInt8] = []
        body.appendBigEndian(legacyVersion)
        body += [UInt8](repeating: 0x5A, count: 32)
        body += [0, 0, 4, 0x13, 0x01, 0xC0, 0x2F, 1, 0]
        if let extensions { body += extensionBlock(extensions) }
        return body
    }

    public static func serverHelloBody(
        legacyVersion: UInt16 = 0x0303, random: [UInt8] = [UInt8](repeating: 0x33, count: 32),
        cipherSuite: UInt16, extensions: [(UInt16, [UInt8])]?
    ) -> [UInt8] {
        var body: [UInt8] = []
        body.appendBigEndian(legacyVersion)
        body += random
        body.append(0)
        body.appendBigEndian(cipherSuite)
        body.append(0)
        if let extensions { body += extensionBlock(extensions) }
        return body
    }

    public static func serverNameExtension(_ name: String) -> (UInt16, [UInt8]) {
        let bytes = Array(name.utf8)
        var data: [UInt8] = []
        data.appendBigEndian(UInt16(truncatingIfNeeded: bytes.count + 3))
        data.append(0)
        data.appendBigEndian(UInt16(truncatingIfNeeded: bytes.count))
        return (0, data + bytes)
    }

    public static func supportedVersionsExtension(_ versions: [UInt16]) -> (UInt16, [UInt8]) {
        var data: [UInt8] = [UInt8(truncatingIfNeeded: versions.count * 2)]
        for version in versions { data.appendBigEndian(version) }
        return (43, data)
    }

    public static func alpnExtension(_ names: [[UInt8]]) -> (UInt16, [UInt8]) {
        var list: [UInt8] = []
        for name in names {
            list.append(UInt8(truncatingIfNeeded: name.count))
            list += name
        }
        var data: [UInt8] = []
        data.appendBigEndian(UInt16(truncatingIfNeeded: list.count))
        return (16, data + list)
    }

    private static func extensionBlock(_ extensions: [(UInt16, [UInt8])]) -> [UInt8] {
        var block: [UInt8] = []
        for (type, data) in extensions {
            block.appendBigEndian(type)
            block.appendBigEndian(UInt16(truncatingIfNeeded: data.count))
            block += data
        }
        var prefixed: [UInt8] = []
        prefixed.appendBigEndian(UInt16(truncatingIfNeeded: block.count))
        return prefixed + block
    }
}

extension Array where Element == UInt8 {
    public mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        for shift in stride(from: T.bitWidth - 8, through: 0, by: -8) {
            append(UInt8(truncatingIfNeeded: value >> T(shift)))
        }
    }

    mutating func appendBigEndian24(_ value: Int) {
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }
}
