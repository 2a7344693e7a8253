/// The relay's decision as the flow keeps it (`flow_relay.decision`, flows.json, the report).
/// Its written name is a format: `allCases` is the one table both ways.
public enum RelayDecisionKind: Sendable, Hashable, CaseIterable {
    case terminated
    case spliced(RelaySpliceReason)
    /// The connection ended before the relay decided (the original destination did not answer).
    case undecided

    public static var allCases: [RelayDecisionKind] { [.terminated, .undecided] + RelaySpliceReason.allCases.map(Self.spliced) }

    /// "terminated", "undecided" or "spliced.<reason>".
    public var name: String {
        switch self {
        case .terminated: "terminated"
        case .undecided: "undecided"
        case .spliced(let reason): "spliced." + reason.rawValue
        }
    }

    /// The kind of a written name; nil for a name this version does not know.
    public init?(name: String) {
        guard let kind = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = kind
    }
}

/// What happened on a relayed connection besides (or instead of) an outcome: the kind of the
/// relay's event (`RelayEvent`, whose payload the facts keep in `alert` and `reason`).
public enum RelayEventKind: Sendable, Hashable, CaseIterable, NamedByCase {
    case phoneClosedAfterHandshake
    case phoneResetAfterHandshake
    case phoneLeftDuringHandshake
    case phoneClosingAlertDuringHandshake
    case serverClosedBeforePhoneData
    case upstreamUnreachable
    case upstreamRefusedByPolicy
    case relaySentAlert
    case phoneRefusedMirroredCertificate
    case handedToPlainUpstream
    case relayFailed
    case closed
}

/// What a phone-leg connection was shown (`flow_relay.presented`).
public enum ShownLeafKind: Sendable, Hashable, CaseIterable, NamedByCase {
    /// The installed CA's leaf for the announced name.
    case installedAuthority
    /// The recording's defect (a validation recording).
    case untrustedIssuer, wrongName, expired
    /// An untrusted issuer's leaf in place of the recording's, because the server's certificate did not verify.
    case mirroredUntrustedIssuer
    /// The recording's leaf although the server's certificate did not verify: the mirror was turned off.
    case unverifiedUpstreamNotMirrored
}

/// What the TLS inspection relay kept of one phone-leg connection, beside the outcome the flow's
/// `tls_status` carries. Stored in `flow_relay`, one row per flow.
public struct RelayFacts: Sendable, Hashable {
    public var decision: RelayDecisionKind
    /// Nil while the connection has no event.
    public var event: RelayEventKind?
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
    /// Nil when no leaf was minted.
    public var presented: ShownLeafKind?
    /// The name as the phone sent it, when it differs from the flow's (a trailing dot).
    public var serverNameAsSent: String?
    /// The requests read inside the connection, in the order they were sent (`flow_request`).
    public var requests: [ReadRequest] = []
    /// Requests read past the relay's bound per connection: counted, not kept.
    public var requestsNotKept = 0

    public init(
        decision: RelayDecisionKind, event: RelayEventKind? = nil, alert: UInt8? = nil, reason: String? = nil,
        upstreamVerified: Bool? = nil, upstreamVerification: String? = nil, upstreamApplicationProtocol: String? = nil,
        keyLog: [String] = [], presented: ShownLeafKind? = nil, serverNameAsSent: String? = nil
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

    /// What the audit reads of these facts beside the flow's status.
    public var verdict: RelayVerdict? {
        RelayVerdict(decision: decision, event: event, alert: alert, presented: presented)
    }
}

/// One message from the relay about a flow on tv0, in the order the relay sent them.
public enum RelayFlowUpdate: Sendable, Hashable {
    /// Our first TLS byte is about to reach the phone: the server side is ours from here.
    case answering
    /// The termination gave up before that byte: the server side is the real server's again.
    case rolledBack
    /// An outcome, an event, or the end of the connection: the facts to keep, the status the flow
    /// takes (`inspected` or `notInspectable`, when there is an outcome), and the relay's own TLS
    /// to the server while this termination owns the flow (source upstreamConnection).
    case reported(RelayFacts, outcome: TLSInspectionStatus?, upstream: TLSNegotiation?)
}

/// The relay's facts of a flow in a batch, named by the engine's handle.
public struct RelayFactsRecord: Sendable, Hashable {
    public let flow: FlowHandle
    public let facts: RelayFacts

    public init(flow: FlowHandle, facts: RelayFacts) {
        self.flow = flow
        self.facts = facts
    }
}
