/// The TCP flag bits the flow engine acts on.
public struct TCPFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let fin = TCPFlags(rawValue: 0x01)
    public static let syn = TCPFlags(rawValue: 0x02)
    public static let rst = TCPFlags(rawValue: 0x04)
    public static let ack = TCPFlags(rawValue: 0x10)
}

public struct TCPSegment {
    public let sourcePort: UInt16
    public let destinationPort: UInt16
    public let sequenceNumber: UInt32
    public let acknowledgementNumber: UInt32
    public let flags: TCPFlags
    public let payload: UnsafeRawBufferPointer

    public init?(_ bytes: UnsafeRawBufferPointer) {
        var reader = ByteReader(bytes)
        guard let sourcePort = reader.u16(), let destinationPort = reader.u16(),
              let sequence = reader.u32(), let acknowledgement = reader.u32(),
              let offsetByte = reader.u8(), let flags = reader.u8()
        else { return nil }
        let headerLength = Int(offsetByte >> 4) * 4
        guard headerLength >= 20, let payload = bytes.slice(from: headerLength) else { return nil }
        self.sourcePort = sourcePort
        self.destinationPort = destinationPort
        self.sequenceNumber = sequence
        self.acknowledgementNumber = acknowledgement
        self.flags = TCPFlags(rawValue: flags)
        self.payload = payload
    }
}

public struct UDPDatagram {
    public let sourcePort: UInt16
    public let destinationPort: UInt16
    public let payload: UnsafeRawBufferPointer

    public init?(_ bytes: UnsafeRawBufferPointer) {
        var reader = ByteReader(bytes)
        guard let sourcePort = reader.u16(), let destinationPort = reader.u16(),
              let length = reader.u16(), reader.skip(2)
        else { return nil }
        // Length 0 is how a jumbogram's UDP header says "the IP layer knows" (RFC 2675).
        let stated = length == 0 ? bytes.count : Int(length)
        guard stated >= 8 else { return nil }
        self.sourcePort = sourcePort
        self.destinationPort = destinationPort
        self.payload = bytes.slice(from: 8, count: min(stated, bytes.count) - 8) ?? reader.rest
    }
}
