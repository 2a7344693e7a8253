/// The IP protocol number of a flow, kept raw so that nothing the wire carried is lost.
public struct TransportProtocol: Sendable, Hashable, RawRepresentable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let icmp = TransportProtocol(rawValue: 1)
    public static let tcp = TransportProtocol(rawValue: 6)
    public static let udp = TransportProtocol(rawValue: 17)
    public static let icmpv6 = TransportProtocol(rawValue: 58)
    public static let other = TransportProtocol(rawValue: 255)

    /// The name documents use: tcp / udp / icmp / icmpv6 / other.
    public var name: String {
        switch self {
        case .tcp: "tcp"
        case .udp: "udp"
        case .icmp: "icmp"
        case .icmpv6: "icmpv6"
        default: "other"
        }
    }

    public var hasPorts: Bool { self == .tcp || self == .udp }
}

/// A canonical 5-tuple: the lower endpoint first, so both directions of a flow share one key.
/// It does not know which end is the phone; the byte counts carry the direction.
public struct FlowKey: Sendable, Hashable {
    public let proto: TransportProtocol
    public let endpointA: Endpoint
    public let endpointB: Endpoint

    public init(proto: TransportProtocol, _ first: Endpoint, _ second: Endpoint) {
        self.proto = proto
        if second < first {
            endpointA = second
            endpointB = first
        } else {
            endpointA = first
            endpointB = second
        }
    }

    /// The endpoint opposite the given one (the other end when both are equal).
    public func peer(of endpoint: Endpoint) -> Endpoint {
        endpoint == endpointA ? endpointB : endpointA
    }
}

/// Which way a packet went: outbound is what the phone sent. Stored as 0 and 1.
public enum Direction: UInt8, Sendable, Hashable, CaseIterable {
    case outbound = 0
    case inbound = 1
}
