import TunnelVisionModel

// The relay's public interface: what the daemon gives it and what it hands back.
//
// - `RelayConfiguration`: whether inspection is on, the listener's port, the inspected ports,
//   the CA's two files and the bounds. The daemon builds it from its settings.
// - `RelayServer(configuration:observer:)` (RelayServer.swift) loads or makes the CA, binds the
//   listener and runs its event loop on a thread of its own; `caFingerprint` is the SHA-256 of
//   the CA certificate's DER (what the heartbeat and the session record); `stop()` ends it.
// - `RelayObserver`: the daemon's sink. Called on the relay's thread, in this order per
//   connection: `relayWillAnswer` (at most once, before our first TLS byte reaches the phone:
//   from here the passive reader must ignore the server side of that flow, its certificate
//   visibility is `replacedByInspection`), `relayDidRollBack` (the termination gave up before
//   that byte: the server side is the real server's again), then `relayDidReport` once the
//   outcome is known and once more when the connection ends (`isFinal`). A splice without an
//   outcome reports once, at its end; a remembered host's splice reports at once and at the end.
//   The observer must not block: it queues the report for the single writer.
// - `RelayReport`: one phone-leg connection. Its flow is `phoneLeg.flowKey`, the same canonical
//   5-tuple the tap reads on tv0. `decision`, `outcome` (the tls_status the flow takes, if
//   any), `event` (the fact kept when there is no outcome, or how a termination ended),
//   `upstream` (the reading with source `upstreamConnection`, and whether the certificate
//   verified), `keyLog` (SSLKEYLOGFILE lines of the phone↔relay leg), the instants, and (in the
//   final report of a terminated connection) the requests read inside it.

/// What the relay needs to run. Paths are the daemon's; the CA is made there if absent.
public struct RelayConfiguration: Sendable, Hashable {
    /// Inspection off: every connection the redirect brings is spliced untouched.
    public var isEnabled: Bool
    /// The listener the nftables `redirect to :port` rule points at (IPv4 and IPv6).
    public var listenPort: UInt16
    /// Original destination ports the relay terminates; any other is spliced.
    public var inspectedPorts: Set<UInt16>
    public var certificateAuthority: CertificateAuthorityFiles
    public var upstreamTrust: UpstreamTrust
    /// SO_MARK on the relay's own connections to servers, so that routing and nftables can tell
    /// them from the phone's (needs CAP_NET_ADMIN); nil leaves them unmarked.
    public var upstreamSocketMark: UInt32?
    /// A server whose certificate does not verify against `upstreamTrust` is shown to the phone
    /// with a leaf of an issuer it does not trust (on by default); off, with the leaf the
    /// recording asks for (for labs whose upstream trust is incomplete).
    public var mirrorsUnverifiedUpstream: Bool
    public var limits: RelayLimits

    public init(
        isEnabled: Bool, listenPort: UInt16 = 8443, inspectedPorts: Set<UInt16> = [443],
        certificateAuthority: CertificateAuthorityFiles, upstreamTrust: UpstreamTrust = .system,
        upstreamSocketMark: UInt32? = nil, mirrorsUnverifiedUpstream: Bool = true, limits: RelayLimits = RelayLimits()
    ) {
        self.mirrorsUnverifiedUpstream = mirrorsUnverifiedUpstream
        self.isEnabled = isEnabled
        self.listenPort = listenPort
        self.inspectedPorts = inspectedPorts
        self.certificateAuthority = certificateAuthority
        self.upstreamTrust = upstreamTrust
        self.upstreamSocketMark = upstreamSocketMark
        self.limits = limits
    }
}

/// The CA's key (0600, the daemon's user) and certificate (0640, readable by the group).
public struct CertificateAuthorityFiles: Sendable, Hashable {
    public var keyPath: String
    public var certificatePath: String

    public init(keyPath: String, certificatePath: String) {
        self.keyPath = keyPath
        self.certificatePath = certificatePath
    }
}

/// What the upstream certificate is verified against. The result is a fact, and a certificate
/// that does not verify is mirrored to the phone (`mirrorsUnverifiedUpstream`): never a gate of
/// the relay's own, never hidden from the phone's validation.
public enum UpstreamTrust: Sendable, Hashable {
    /// The system's store (OpenSSL's default paths).
    case system
    /// A PEM bundle instead of the system store (the lab's own server CA in tests).
    case bundle(path: String)
}

public struct RelayLimits: Sendable, Hashable {
    /// At most this much of the phone's first bytes is held while waiting for its ClientHello;
    /// a first message still incomplete at it is spliced (`holdFull`).
    public var holdBytes: Int
    /// A phone that sends nothing for this long is spliced (the server may speak first).
    public var holdSeconds: Double
    /// Bytes buffered per direction of one connection before reading from its source stops.
    public var bufferBytes: Int
    /// The most connections at once, before the descriptor ceiling lowers it (`connectionCeiling`).
    public var maximumConnections: Int
    /// Leaves kept per SNI; the oldest used is dropped first.
    public var leafCacheEntries: Int
    /// Hosts remembered as refusing for this run; the oldest is forgotten first.
    public var refusalMemoryEntries: Int
    /// How long dialling the original destination may take before the phone is reset.
    public var connectSeconds: Double
    /// How long the TLS handshakes (ours with the server, then the phone's with us) may take.
    public var handshakeSeconds: Double
    /// An established or spliced connection that moves no byte either way for this long is closed.
    public var idleSeconds: Double
    /// Relay connections one phone holds at once; its next ones are spliced (recorded, not inspected), not refused.
    public var connectionsPerPhone: Int
    /// Descriptors the relay leaves to the rest of the daemon (capture files, the history, the
    /// TUN device): the relay stops accepting before it could take any of them.
    public var descriptorReserve: Int
    /// Bytes all connections together hold queued and in their TLS buffers; at it every
    /// connection stops reading (writing on) until the total is below it again.
    public var bufferBudget: Int

    public init(
        holdBytes: Int = 64 * 1024, holdSeconds: Double = 10, bufferBytes: Int = 256 * 1024,
        maximumConnections: Int = 4096, leafCacheEntries: Int = 1024, refusalMemoryEntries: Int = 4096,
        connectSeconds: Double = 10, handshakeSeconds: Double = 30, idleSeconds: Double = 900,
        connectionsPerPhone: Int = 1024, descriptorReserve: Int = 1024, bufferBudget: Int = 256 * 1024 * 1024
    ) {
        self.holdBytes = holdBytes
        self.holdSeconds = holdSeconds
        self.bufferBytes = bufferBytes
        self.maximumConnections = maximumConnections
        self.leafCacheEntries = leafCacheEntries
        self.refusalMemoryEntries = refusalMemoryEntries
        self.connectSeconds = connectSeconds
        self.handshakeSeconds = handshakeSeconds
        self.idleSeconds = idleSeconds
        self.connectionsPerPhone = connectionsPerPhone
        self.descriptorReserve = descriptorReserve
        self.bufferBudget = bufferBudget
    }

    /// Descriptors one connection holds at most: the phone's socket and the server's.
    public static let descriptorsPerConnection = 2

    /// The connections the relay takes at once under a descriptor limit (RLIMIT_NOFILE): what is
    /// left after the reserve, two a connection, never above `maximumConnections`; 0 when the
    /// reserve takes it all.
    public func connectionCeiling(descriptorLimit: Int) -> Int {
        let available = descriptorLimit - descriptorReserve
        return max(0, min(maximumConnections, available / Self.descriptorsPerConnection))
    }
}

/// The daemon's sink. Called on the relay's own thread; must queue, never block.
public protocol RelayObserver: AnyObject, Sendable {
    /// Before our first TLS byte reaches the phone: ignore this flow's server side from now.
    func relayWillAnswer(_ leg: RelayPhoneLeg)
    /// The termination gave up before that byte; the held stream went to a plain upstream.
    func relayDidRollBack(_ leg: RelayPhoneLeg)
    /// The outcome is known, or the connection ended (`report.isFinal`).
    func relayDidReport(_ report: RelayReport)
    /// When a termination begins: what the phone's open recording asks to be shown.
    /// Read from the database by the daemon; the default is the installed CA's leaf. Nil when it
    /// cannot be read: then nothing is presented, rather than a leaf the recording did not ask for.
    func presentation(for leg: RelayPhoneLeg) -> RequestedLeaf?
    /// The leaf a termination is about to show the phone, before its first byte is written.
    func relayDidPresent(_ leaf: ShownLeaf, on leg: RelayPhoneLeg)
}

/// The phone's connection as the tap sees it: the phone's endpoint and where it was going.
public struct RelayPhoneLeg: Sendable, Hashable {
    public let phone: Endpoint
    public let originalDestination: Endpoint

    public init(phone: Endpoint, originalDestination: Endpoint) {
        self.phone = phone
        self.originalDestination = originalDestination
    }

    /// The flow on tv0 this connection is.
    public var flowKey: FlowKey { FlowKey(proto: .tcp, phone, originalDestination) }
}

/// Why the relay passed a connection through untouched: the model's list, because a flow keeps
/// the reason and the certificate validation check reads it.
public typealias SpliceReason = RelaySpliceReason

public enum RelayDecision: Sendable, Hashable {
    case terminate(serverName: String)
    case splice(SpliceReason)

    /// The decision as the flow keeps it.
    public var kind: RelayDecisionKind {
        switch self {
        case .terminate: .terminated
        case .splice(let reason): .spliced(reason)
        }
    }
}

/// The inspection outcome the flow's tls_status takes.
public enum RelayOutcome: Sendable, Hashable {
    /// The phone completed our handshake and sent application data over it.
    case inspected
    /// The phone answered our handshake with this alert; the host is now remembered.
    case notInspectable(alert: UInt8)
    /// Spliced because the host refused earlier in this run: untested here, it may predate the session.
    case notInspectableRemembered

    public var tlsStatus: TLSInspectionStatus {
        switch self {
        case .inspected: .inspected
        case .notInspectable, .notInspectableRemembered: .notInspectable
        }
    }
}

/// What happened on a connection besides (or instead of) an outcome. Kept as a fact of the flow.
public enum RelayEvent: Sendable, Hashable {
    /// Handshake done, then the phone closed (FIN or close_notify) before any data: pins checked after the handshake look so.
    case phoneClosedAfterHandshake
    /// Handshake done, then the phone reset the connection before any data.
    case phoneResetAfterHandshake
    /// The phone closed or reset during our handshake without an alert.
    case phoneLeftDuringHandshake
    /// The phone sent a closing alert (close_notify, user_canceled) or ech_required during our handshake: not a refusal.
    case phoneClosingAlertDuringHandshake(alert: UInt8)
    /// The server closed after the phone's handshake, before the phone sent any data.
    case serverClosedBeforePhoneData
    /// The original destination refused or did not answer: the phone was reset.
    case upstreamUnreachable
    /// The original destination is one the relay never dials (the gateway itself, loopback…): the phone was reset.
    case upstreamRefusedByPolicy(DestinationRefusal)
    /// Our TLS server ended the phone's handshake with an alert of its own (the phone's bytes did
    /// not parse, or it offered nothing we speak): the relay's failure, never the phone's refusal.
    case relaySentAlert(alert: UInt8, reason: String)
    /// The server's certificate did not verify, so the phone was shown one it should refuse as well
    /// (an untrusted issuer), and it answered with this alert: its own validation decided, as without the relay.
    case phoneRefusedMirroredCertificate(alert: UInt8)
    /// Our TLS to the server failed before we answered the phone: the held stream went to a plain upstream.
    case handedToPlainUpstream(reason: String)
    /// Our handshake with the phone failed on our side, or the server failed after we answered.
    case relayFailed(reason: String)
    /// The connection ended after data went both ways (the normal end of an inspected flow).
    case closed

    /// The kind the flow keeps; the payload goes to the facts' `alert` and `reason`.
    public var kind: RelayEventKind {
        switch self {
        case .phoneClosedAfterHandshake: .phoneClosedAfterHandshake
        case .phoneResetAfterHandshake: .phoneResetAfterHandshake
        case .phoneLeftDuringHandshake: .phoneLeftDuringHandshake
        case .phoneClosingAlertDuringHandshake: .phoneClosingAlertDuringHandshake
        case .serverClosedBeforePhoneData: .serverClosedBeforePhoneData
        case .upstreamUnreachable: .upstreamUnreachable
        case .upstreamRefusedByPolicy: .upstreamRefusedByPolicy
        case .relaySentAlert: .relaySentAlert
        case .phoneRefusedMirroredCertificate: .phoneRefusedMirroredCertificate
        case .handedToPlainUpstream: .handedToPlainUpstream
        case .relayFailed: .relayFailed
        case .closed: .closed
        }
    }
}

/// The relay's own TLS connection to the server.
public struct UpstreamReading: Sendable, Hashable {
    /// Source `upstreamConnection`: read from our own connection, never from a HelloRetryRequest.
    public let negotiation: TLSNegotiation
    public let applicationProtocol: String?
    /// The chain and the SNI verified against the configured trust.
    public let certificateVerified: Bool
    /// OpenSSL's verify result text ("ok", "unable to get local issuer certificate").
    public let verification: String

    public init(negotiation: TLSNegotiation, applicationProtocol: String?, certificateVerified: Bool, verification: String) {
        self.negotiation = negotiation
        self.applicationProtocol = applicationProtocol
        self.certificateVerified = certificateVerified
        self.verification = verification
    }
}

/// Nanoseconds since the epoch, as everywhere on disk.
public struct RelayInstants: Sendable, Hashable {
    public var accepted: Int64
    public var decided: Int64?
    public var handshakeCompleted: Int64?
    public var outcome: Int64?
    public var ended: Int64?

    public init(accepted: Int64) { self.accepted = accepted }
}

/// One phone-leg connection, as the relay saw it.
public struct RelayReport: Sendable, Hashable {
    public let phoneLeg: RelayPhoneLeg
    /// The announced name, normalised (what the decision and the leaf use).
    public var serverName: String?
    /// The name as the phone sent it, when it had a trailing dot.
    public var serverNameAsSent: String?
    /// The ALPN list the phone offered, passed upstream unchanged.
    public var offeredApplicationProtocols: [String]
    public var decision: RelayDecision?
    public var outcome: RelayOutcome?
    public var event: RelayEvent?
    public var upstream: UpstreamReading?
    /// What the phone was shown, once a leaf was minted for it.
    public var presentation: ShownLeafKind?
    /// SSLKEYLOGFILE lines of the phone↔relay leg, without line ends.
    public var keyLog: [String]
    public var instants: RelayInstants
    /// Application bytes from the phone and to it (decrypted when terminated).
    public var bytesFromPhone: Int
    public var bytesToPhone: Int
    /// The requests read inside a terminated connection, in the order they were sent; carried by
    /// the final report (a connection keeps at most `ConnectionRequests.keptRequests`).
    public var requests: [ReadRequest] = []
    /// The requests read past that bound: counted, not kept.
    public var requestsNotKept = 0
    /// The connection has ended; no further report for this leg.
    public var isFinal: Bool

    public init(phoneLeg: RelayPhoneLeg, accepted: Int64) {
        self.phoneLeg = phoneLeg
        offeredApplicationProtocols = []
        keyLog = []
        instants = RelayInstants(accepted: accepted)
        bytesFromPhone = 0
        bytesToPhone = 0
        isFinal = false
    }
}
