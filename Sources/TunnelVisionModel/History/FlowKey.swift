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
///
/// Held as its words (40 bytes, where two `Endpoint`s and the protocol took 72 with their
/// padding): every live flow and every look-up of the flow table carries one, and the words are
/// what equality compares and the table hashes, with no padding between them.
public struct FlowKey: Sendable, Hashable {
    /// Endpoint A's address words, then B's (`IPAddress.high`, `.low`).
    let highA: UInt64, lowA: UInt64, highB: UInt64, lowB: UInt64
    let portA: UInt16, portB: UInt16
    public let proto: TransportProtocol
    let familyA: IPAddress.Family, familyB: IPAddress.Family

    public init(proto: TransportProtocol, _ first: Endpoint, _ second: Endpoint) {
        let (a, b) = second < first ? (second, first) : (first, second)
        self.proto = proto
        highA = a.address.high
        lowA = a.address.low
        portA = a.port
        familyA = a.address.family
        highB = b.address.high
        lowB = b.address.low
        portB = b.port
        familyB = b.address.family
    }

    public var endpointA: Endpoint { Endpoint(address: IPAddress(familyA, high: highA, low: lowA), port: portA) }
    public var endpointB: Endpoint { Endpoint(address: IPAddress(familyB, high: highB, low: lowB), port: portB) }

    /// The key's words for a hasher: protocol, both families and both ports share the last one.
    public var words: (UInt64, UInt64, UInt64, UInt64, UInt64) {
        (highA, lowA, highB, lowB,
         UInt64(proto.rawValue) << 48 | UInt64(familyA.rawValue) << 44 | UInt64(familyB.rawValue) << 40
            | UInt64(portA) << 16 | UInt64(portB))
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
