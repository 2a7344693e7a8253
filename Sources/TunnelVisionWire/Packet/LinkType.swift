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

    public static let supported: Set<LinkType> = [
        .bsdLoopback, .ethernet, .raw, .linuxCooked, .ipv4, .ipv6, .linuxCookedV2,
    ]

    /// The IP packet inside a frame of this link type; nil when the frame carries no IP.
    public func networkPayload(of frame: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        switch self {
        case .raw, .ipv4, .ipv6:
            return frame
        case .bsdLoopback:
            // The family's byte order depends on the machine that wrote the file; the IP
            // version nibble that follows says the same thing without guessing.
            return frame.slice(from: 4)
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

    private static func payload(
        _ frame: UnsafeRawBufferPointer, etherTypeAt offset: Int, headerLength: Int
    ) -> UnsafeRawBufferPointer? {
        var reader = ByteReader(frame)
        guard reader.skip(offset), let etherType = reader.u16() else { return nil }
        guard etherType == ipv4EtherType || etherType == ipv6EtherType else { return nil }
        return frame.slice(from: headerLength)
    }
}
