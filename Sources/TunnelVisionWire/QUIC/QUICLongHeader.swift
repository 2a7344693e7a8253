import TunnelVisionModel

/// An RFC 8999 long header: the invariant fields every QUIC version shares, plus, for the versions
/// whose Initials can be opened (v1, v2, the drafts), where an Initial packet's protected part lies.
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

    /// RFC 8999 leaves the second bit to each version; v1 fixes it to 1, unless both ends agreed to
    /// grease it (RFC 9287). Without the tag's proof, a long header is taken only with it set.
    public let hasFixedBit: Bool

    public static let maximumConnectionIDLength = 20

    public init?(_ datagram: UnsafeRawBufferPointer) {
        var reader = ByteReader(datagram)
        guard let first = reader.u8(), first & 0x80 != 0, let version = reader.u32(), version != 0,
              let destination = reader.takeLengthPrefixed(lengthBytes: 1),
              let source = reader.takeLengthPrefixed(lengthBytes: 1)
        else { return nil }
        let parsed = QUICVersion(version)
        if parsed.hasReadableInitials {
            guard destination.count <= Self.maximumConnectionIDLength,
                  source.count <= Self.maximumConnectionIDLength else { return nil }
        }
        self.version = parsed
        self.destinationConnectionID = destination
        self.sourceConnectionID = source
        self.packetTypeBits = (first >> 4) & 0x03
        self.hasFixedBit = first & 0x40 != 0
        self.packet = datagram
        self.afterConnectionIDs = reader.position
    }

    /// Initial is type 0 in v1 and the drafts, type 1 in v2 (RFC 9369 § 3.2); false for a version
    /// whose packet types are not known.
    public var isInitial: Bool {
        InitialProtection(version).map { $0.initialType == packetTypeBits } ?? false
    }

    /// 0-RTT follows Initial: type 1 in v1 and the drafts, type 2 in v2.
    public var isZeroRTT: Bool {
        InitialProtection(version).map { $0.initialType + 1 == packetTypeBits } ?? false
    }

    /// Retry is type 3 in v1 and the drafts, type 0 in v2.
    public var isRetry: Bool {
        InitialProtection(version).map { $0.retryType == packetTypeBits } ?? false
    }
}

extension QUICVersion {
    /// Whether the version is of a family QUIC implementations publish: v1, v2 and v2's draft
    /// (0x709A50C4), the IETF drafts (0xFF0000xx), Google's Q0xx and T0xx, Facebook mvfst's
    /// 0xFACEB0xx, and the pattern RFC 9000 § 15 reserves to force version negotiation. Without
    /// a tag's proof, only such a header is taken for QUIC: any other bytes that happen to set
    /// the long-header bits on UDP 443 are not a QUIC reading.
    public var isOfAPublishedFamily: Bool {
        switch rawValue {
        case 0x0000_0001, 0x6B33_43CF, 0x709A_50C4, 0xFF00_0000...0xFF00_00FF, 0xFACE_B000...0xFACE_B0FF:
            return true
        default:
            let prefix = rawValue >> 16
            return prefix == 0x5130 || prefix == 0x5430 || rawValue & 0x0F0F_0F0F == 0x0A0A_0A0A
        }
    }
}
