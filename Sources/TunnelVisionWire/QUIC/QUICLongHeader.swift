import TunnelVisionModel

/// An RFC 8999 long header: the invariant fields every QUIC version shares, plus, for v1 and v2,
/// where an Initial packet's protected part lies.
public struct QUICLongHeader {
    public let version: QUICVersion
    public let destinationConnectionID: UnsafeRawBufferPointer
    public let sourceConnectionID: UnsafeRawBufferPointer
    /// The version-specific packet type (two bits), meaningful only for v1/v2.
    public let packetTypeBits: UInt8
    /// Bytes from the first byte of this packet to the end of the datagram.
    public let packet: UnsafeRawBufferPointer
    /// Offset in `packet` just after the connection IDs.
    public let afterConnectionIDs: Int

    public static let maximumConnectionIDLength = 20

    public init?(_ datagram: UnsafeRawBufferPointer) {
        var reader = ByteReader(datagram)
        guard let first = reader.u8(), first & 0xC0 == 0xC0, let version = reader.u32(), version != 0,
              let destination = reader.takeLengthPrefixed(lengthBytes: 1),
              let source = reader.takeLengthPrefixed(lengthBytes: 1)
        else { return nil }
        let parsed = QUICVersion(version)
        if parsed.hasKnownPacketProtection {
            guard destination.count <= Self.maximumConnectionIDLength,
                  source.count <= Self.maximumConnectionIDLength else { return nil }
        }
        self.version = parsed
        self.destinationConnectionID = destination
        self.sourceConnectionID = source
        self.packetTypeBits = (first >> 4) & 0x03
        self.packet = datagram
        self.afterConnectionIDs = reader.position
    }

    /// Initial is type 0 in v1 and type 1 in v2 (RFC 9369 § 3.2).
    public var isInitial: Bool {
        switch version {
        case .v1: packetTypeBits == 0
        case .v2: packetTypeBits == 1
        default: false
        }
    }

    /// Retry is type 3 in v1 and type 0 in v2.
    public var isRetry: Bool {
        switch version {
        case .v1: packetTypeBits == 3
        case .v2: packetTypeBits == 0
        default: false
        }
    }
}
