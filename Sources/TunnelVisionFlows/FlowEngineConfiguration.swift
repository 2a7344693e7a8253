import TunnelVisionModel

/// How the flow engine tells the phone's end, and the bounds it keeps.
public struct FlowEngineConfiguration: Sendable, Hashable {
    /// The phone's networks: a packet from inside them is outbound. Empty (offline import):
    /// the end that opened the flow is the phone.
    public var clientNetworks: [IPNetwork]
    /// Live flows kept at once; the least recently seen is flushed and forgotten beyond it.
    public var flowCapacity: Int
    public var tcpIdleTimeoutNanoseconds: Int64
    /// UDP, ICMP and every other protocol.
    public var datagramIdleTimeoutNanoseconds: Int64
    /// Bytes of each direction's start kept for reassembly.
    public var reassemblyLimit: Int
    /// Bytes of reassembly all live flows hold together. Beyond it the oldest flows' readings are
    /// given up (their opening stays unread), so that memory stays bounded whatever the phone opens.
    public var reassemblyBudget: Int

    public init(
        clientNetworks: [IPNetwork] = [],
        flowCapacity: Int = 4096,
        tcpIdleTimeoutNanoseconds: Int64 = 15 * 60 * 1_000_000_000,
        datagramIdleTimeoutNanoseconds: Int64 = 120 * 1_000_000_000,
        reassemblyLimit: Int = 256 * 1024,
        reassemblyBudget: Int = 64 * 1024 * 1024
    ) {
        self.clientNetworks = clientNetworks
        self.flowCapacity = max(flowCapacity, 1)
        self.tcpIdleTimeoutNanoseconds = tcpIdleTimeoutNanoseconds
        self.datagramIdleTimeoutNanoseconds = datagramIdleTimeoutNanoseconds
        self.reassemblyLimit = reassemblyLimit
        self.reassemblyBudget = max(reassemblyBudget, 1)
    }

    func idleTimeout(for proto: TransportProtocol) -> Int64 {
        proto == .tcp ? tcpIdleTimeoutNanoseconds : datagramIdleTimeoutNanoseconds
    }

    func isClient(_ address: IPAddress) -> Bool {
        clientNetworks.contains { $0.contains(address) }
    }
}

/// What the engine counted that has no row of its own.
public struct FlowEngineStatistics: Sendable, Hashable {
    public var packets: UInt64 = 0
    /// Frames without a readable IPv4/IPv6 packet and transport header.
    public var undecodable: UInt64 = 0
    public var flowsEvicted: UInt64 = 0
    public var flowsExpired: UInt64 = 0
    /// DNS responses read into the attribution map; zero everywhere suggests encrypted DNS.
    public var dnsResponses: UInt64 = 0
    /// TLS flows whose server sent something other than a readable ServerHello or alert first
    /// (not TLS, another message, malformed, a record over its bound).
    public var serverAnswersUnread: UInt64 = 0
    /// Streams whose first bytes outgrew the reassembly bound.
    public var reassemblyOverflows: UInt64 = 0
    /// Flows whose reading was given up at the reassembly budget: their opening stays unread.
    public var reassemblyGivenUp: UInt64 = 0

    public init() {}
}
