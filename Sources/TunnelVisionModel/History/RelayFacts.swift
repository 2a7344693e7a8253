import Foundation

/// What the TLS inspection relay kept of one phone-leg connection, beside the outcome the flow's
/// `tls_status` carries. Stored in `flow_relay`, one row per flow.
public struct RelayFlowFacts: Sendable, Hashable {
    /// "terminated" or "spliced.<reason>".
    public var decision: String
    /// The relay event's kind ("phoneClosedAfterHandshake", "closed"…), nil while none.
    public var event: String?
    /// The alert the phone answered with, or the closing alert of the event.
    public var alert: UInt8?
    /// Why the relay gave up, in OpenSSL's or the kernel's words.
    public var reason: String?
    /// Whether the upstream certificate verified against the system store; nil when not dialled over TLS.
    public var upstreamVerified: Bool?
    public var upstreamVerification: String?
    /// The protocol the server chose over ALPN, which the phone got.
    public var upstreamApplicationProtocol: String?
    /// SSLKEYLOGFILE lines of the phone↔relay leg, without line ends.
    public var keyLog: [String]
    /// What the phone was shown (the relay's `RelayPresentation`: "installedAuthority",
    /// "mirroredUntrustedIssuer"…); nil when no leaf was minted.
    public var presented: String?
    /// The name as the phone sent it, when it differs from the flow's (a trailing dot).
    public var serverNameAsSent: String?

    public init(
        decision: String, event: String? = nil, alert: UInt8? = nil, reason: String? = nil,
        upstreamVerified: Bool? = nil, upstreamVerification: String? = nil, upstreamApplicationProtocol: String? = nil,
        keyLog: [String] = [], presented: String? = nil, serverNameAsSent: String? = nil
    ) {
        self.presented = presented
        self.serverNameAsSent = serverNameAsSent
        self.decision = decision
        self.event = event
        self.alert = alert
        self.reason = reason
        self.upstreamVerified = upstreamVerified
        self.upstreamVerification = upstreamVerification
        self.upstreamApplicationProtocol = upstreamApplicationProtocol
        self.keyLog = keyLog
    }
}

/// One message from the relay about a flow on tv0, in the order the relay sent them.
public enum RelayFlowUpdate: Sendable, Hashable {
    /// Our first TLS byte is about to reach the phone: the server side is ours from here.
    case answering
    /// The termination gave up before that byte: the server side is the real server's again.
    case rolledBack
    /// An outcome, an event, or the end of the connection.
    case reported(RelayFlowReport)
}

public struct RelayFlowReport: Sendable, Hashable {
    /// `inspected` or `notInspectable`, when there is an outcome.
    public var outcome: TLSInspectionStatus?
    /// The relay's own TLS to the server, while this termination owns the flow (source upstreamConnection).
    public var upstream: TLSNegotiation?
    public var facts: RelayFlowFacts

    public init(outcome: TLSInspectionStatus?, upstream: TLSNegotiation?, facts: RelayFlowFacts) {
        self.outcome = outcome
        self.upstream = upstream
        self.facts = facts
    }
}

/// The relay's facts of a flow in a batch, named by the engine's handle.
public struct RelayFactsRecord: Sendable, Hashable {
    public let flow: FlowHandle
    public let facts: RelayFlowFacts

    public init(flow: FlowHandle, facts: RelayFlowFacts) {
        self.flow = flow
        self.facts = facts
    }
}
