/// The pcap link types a capture may carry (the LINKTYPE_ registry values).
public struct LinkType: Sendable, Hashable, RawRepresentable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// BSD loopback: a four-byte address family in the writer's byte order.
    public static let bsdLoopback = LinkType(rawValue: 0)
    public static let ethernet = LinkType(rawValue: 1)
    public static let raw = LinkType(rawValue: 101)
    public static let linuxCooked = LinkType(rawValue: 113)
    public static let ipv4 = LinkType(rawValue: 228)
    public static let ipv6 = LinkType(rawValue: 229)
    public static let linuxCookedV2 = LinkType(rawValue: 276)
    /// PPP (RFC 1661), with or without RFC 1662's address and control bytes; and PPP in HDLC-like framing.
    public static let ppp = LinkType(rawValue: 9)
    public static let pppHDLC = LinkType(rawValue: 50)
    /// Cisco HDLC: address, control, then an EtherType.
    public static let ciscoHDLC = LinkType(rawValue: 104)
    /// OpenBSD loopback: a four-byte address family in network byte order.
    public static let openBSDLoopback = LinkType(rawValue: 108)
    /// PPP and Cisco HDLC as libpcap writes them with a direction byte first.
    public static let pppWithDirection = LinkType(rawValue: 204)
    public static let ciscoHDLCWithDirection = LinkType(rawValue: 205)
    /// Linux NFLOG (`tcpdump -i nflog:N`): a header, then type-length-value attributes, one of them the packet.
    public static let nflog = LinkType(rawValue: 239)

    public static let supported: Set<LinkType> = [
        .bsdLoopback, .ethernet, .raw, .linuxCooked, .ipv4, .ipv6, .linuxCookedV2,
        .ppp, .pppHDLC, .ciscoHDLC, .openBSDLoopback, .pppWithDirection, .ciscoHDLCWithDirection, .nflog,
    ]

    /// The IP packet inside a frame of this link type; nil when the frame carries no IP.
    public func networkPayload(of frame: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        switch self {
        case .raw, .ipv4, .ipv6:
            return frame
        case .bsdLoopback, .openBSDLoopback:
            // The family's byte order depends on the machine that wrote the file; the IP
            // version nibble that follows says the same thing without guessing.
            return frame.slice(from: 4)
        case .ppp, .pppHDLC:
            return Self.pppPayload(frame)
        case .pppWithDirection:
            return frame.slice(from: 1).flatMap(Self.pppPayload)
        case .ciscoHDLC:
            return Self.payload(frame, etherTypeAt: 2, headerLength: 4)
        case .ciscoHDLCWithDirection:
            return Self.payload(frame, etherTypeAt: 3, headerLength: 5)
        case .nflog:
            return Self.nflogPayload(frame)
        case .ethernet:
            return Self.ethernetPayload(frame)
        case .linuxCooked:
            return Self.payload(frame, etherTypeAt: 14, headerLength: 16)
        case .linuxCookedV2:
            return Self.payload(frame, etherTypeAt: 0, headerLength: 20)
        default:
            return nil
        }
    }

    private static let ipv4EtherType: UInt16 = 0x0800
    private static let ipv6EtherType: UInt16 = 0x86DD
    private static let pppoeSessionEtherType: UInt16 = 0x8864
    private static let vlanEtherTypes: Set<UInt16> = [0x8100, 0x88A8, 0x9100]
    /// QinQ stacks two tags; more than this is not a frame anyone sends.
    private static let maximumVLANTags = 4

    private static func ethernetPayload(_ frame: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        var reader = ByteReader(frame)
        guard reader.skip(12), var etherType = reader.u16() else { return nil }
        var tags = 0
        while vlanEtherTypes.contains(etherType) {
            tags += 1
            guard tags <= maximumVLANTags, reader.skip(2), let inner = reader.u16() else { return nil }
            etherType = inner
        }
        if etherType == pppoeSessionEtherType {
            // PPPoE session header (RFC 2516), then the PPP protocol: 0x0021 IPv4, 0x0057 IPv6.
            guard reader.skip(6), let pppProtocol = reader.u16(), pppProtocol == 0x0021 || pppProtocol == 0x0057
            else { return nil }
            return reader.rest
        }
        guard etherType == ipv4EtherType || etherType == ipv6EtherType else { return nil }
        return reader.rest
    }

    /// RFC 1662's address and control bytes (FF 03) when present, then the protocol: two bytes, or
    /// one where protocol-field compression (RFC 1661 § 6.5) sent it odd. Cisco's PPP-in-HDLC
    /// (address 0x0F or 0x8F) carries an EtherType instead.
    private static func pppPayload(_ frame: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        var reader = ByteReader(frame)
        guard let first = reader.peekU8() else { return nil }
        if first == 0x0F || first == 0x8F { return payload(frame, etherTypeAt: 2, headerLength: 4) }
        if first == 0xFF {
            guard reader.skip(1), reader.u8() == 0x03 else { return nil }
        }
        guard let high = reader.u8() else { return nil }
        var pppProtocol = UInt16(high)
        if high & 1 == 0 {
            guard let low = reader.u8() else { return nil }
            pppProtocol = pppProtocol << 8 | UInt16(low)
        }
        // IPv4 0x0021, IPv6 0x0057, whether compressed or not.
        guard pppProtocol == 0x0021 || pppProtocol == 0x0057 else { return nil }
        return reader.rest
    }

    private static let nflogPayloadType: UInt16 = 9
    /// More attributes than NFLOG writes is not a frame, whatever it claims.
    private static let maximumNFLOGAttributes = 32

    /// NFLOG: family, version 0, resource ID (four bytes), then attributes of a little-endian
    /// length (header included) and type, each padded to four bytes; type 9 is the packet.
    private static func nflogPayload(_ frame: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        var reader = ByteReader(frame)
        guard reader.skip(1), reader.u8() == 0, reader.skip(2) else { return nil }
        for _ in 0..<maximumNFLOGAttributes {
            guard let lengthBytes = reader.take(2), let typeBytes = reader.take(2) else { return nil }
            let length = Int(lengthBytes[0]) | Int(lengthBytes[1]) << 8
            let type = (UInt16(typeBytes[0]) | UInt16(typeBytes[1]) << 8) & 0x7FFF
            guard length >= 4, let value = reader.take(length - 4) else { return nil }
            if type == nflogPayloadType { return value }
            // Padding to a four-byte boundary; the last attribute may go without it.
            let padding = (4 - length % 4) % 4
            guard reader.skip(min(padding, reader.remaining)) else { return nil }
        }
        return nil
    }

    private static func payload(
        _ frame: UnsafeRawBufferPointer, etherTypeAt offset: Int, headerLength: Int
    ) -> UnsafeRawBufferPointer? {
        var reader = ByteReader(frame)
        guard reader.skip(offset), let etherType = reader.u16() else { return nil }
        guard etherType == ipv4EtherType || etherType == ipv6EtherType else { return nil }
        return frame.slice(from: headerLength)
    }
}
