import TunnelVisionModel

/// A negotiated TLS version and where it was read.
public struct TLSVersionObservation: Sendable, Hashable {
    public enum Basis: Sendable, Hashable {
        /// The real server's ServerHello (or, alone, its HelloRetryRequest), as it crossed the tap.
        case serverHello(helloRetry: HelloRetryReading?)
        /// The relay's own connection to the server: it answers the tunnel's ClientHello, not the app's.
        case upstreamConnection
        /// A QUIC version read from the server, which carries TLS 1.3.
        case quic(QUICVersion)

        /// The key findings.json writes: serverHello, upstreamConnection or quic.
        public var name: String {
            switch self {
            case .serverHello: "serverHello"
            case .upstreamConnection: "upstreamConnection"
            case .quic: "quic"
            }
        }

        /// Who negotiated the version with the server: the app itself, or the tunnel's relay.
        public var negotiator: TLSNegotiator {
            switch self {
            case .serverHello, .quic: .app
            case .upstreamConnection: .tunnel
            }
        }
    }

    public let version: TLSProtocolVersion
    public let basis: Basis

    /// For a ServerHello reading: whether a HelloRetryRequest was part of the answer.
    public var fromHelloRetryRequest: Bool? {
        if case .serverHello(let retry) = basis { return retry != nil }
        return nil
    }

    /// For a ServerHello reading that involved a HelloRetryRequest: which message was read.
    public var helloRetry: HelloRetryReading? {
        if case .serverHello(let retry) = basis { return retry }
        return nil
    }

    /// For a QUIC reading: the version it was read from.
    public var quicVersion: QUICVersion? {
        if case .quic(let version) = basis { return version }
        return nil
    }

    public init(version: TLSProtocolVersion, basis: Basis) {
        self.version = version
        self.basis = basis
    }

    /// The version the flow negotiated, without judging it; nil when none was read.
    /// A QUIC version read only from the client is a proposal, not a negotiation.
    public init?(of flow: StoredFlow) {
        if let negotiation = flow.serverTLS?.negotiation {
            switch negotiation.source {
            case .serverHello:
                self.init(version: negotiation.version, basis: .serverHello(helloRetry: negotiation.helloRetry))
            case .upstreamConnection:
                self.init(version: negotiation.version, basis: .upstreamConnection)
            }
        } else if flow.serverTLS == nil, let quic = flow.quic, quic.end == .server, quic.version.hasKnownPacketProtection {
            self.init(version: .tls13, basis: .quic(quic.version))
        } else {
            return nil
        }
    }
}

/// Why the app's own ClientHello does not settle what it would have negotiated, when the only
/// version read is the one the relay negotiated upstream.
public enum ClientOfferGap: Sendable, Hashable {
    /// No offer was read from the app's ClientHello.
    case notRead
    /// The offer named only a ceiling (no supported_versions): anything below it may be accepted.
    case ceilingOnly(TLSProtocolVersion)
    /// The hello carried Encrypted Client Hello: the offer read is the outer one.
    case encryptedClientHello
    /// The app listed a version below the minimum.
    case listsWeakerVersion
    /// The list was empty or named a version that is not published.
    case listNotConclusive

    /// The key findings.json writes as `clientOffer`.
    public var name: String {
        switch self {
        case .notRead: "notRead"
        case .ceilingOnly: "ceilingOnly"
        case .encryptedClientHello: "encryptedClientHello"
        case .listsWeakerVersion: "listsWeakerVersion"
        case .listNotConclusive: "listNotConclusive"
        }
    }

    /// Nil when the offer is a list of published versions, none below the minimum, without ECH.
    init?(offer: ClientTLSOffer?, minimum: TLSProtocolVersion) {
        guard let offer else { self = .notRead; return }
        if offer.hasEncryptedClientHello { self = .encryptedClientHello; return }
        switch offer.versionsForm {
        case .upTo:
            guard let ceiling = offer.versions.first else { self = .listNotConclusive; return }
            self = .ceilingOnly(ceiling)
        case .listed:
            guard !offer.versions.isEmpty else { self = .listNotConclusive; return }
            if offer.versions.contains(where: { $0.isBelow(minimum) }) { self = .listsWeakerVersion; return }
            if offer.versions.contains(where: { !$0.isPublished }) { self = .listNotConclusive; return }
            return nil
        }
    }
}

/// Why the TLS version of a flow that speaks TLS could not be judged.
public enum TLSVersionGap: Sendable, Hashable {
    /// The only version read is the relay's upstream one, at or above the minimum, and the app's offer does not settle its own.
    case appNegotiationNotObserved(ClientOfferGap, upstreamVersion: TLSProtocolVersion)
    /// The negotiated version is not one of the five published ones.
    case unrecognisedVersion(TLSProtocolVersion)
    /// The server answered with an alert instead of a ServerHello.
    case serverRefused(alert: UInt8)
    /// QUIC was read only from the phone: a version proposed, not one in use.
    case quicVersionOnlyProposed(QUICVersion)
    /// The server's QUIC version is not known to carry TLS 1.3.
    case unrecognisedQUICVersion(QUICVersion)
    /// The flow shows TLS but the server's answer was not read.
    case serverAnswerNotRead
    /// Only the port suggests TLS, and the connection's start was seen with no byte sent after it.
    case nothingSent

    /// The key findings.json writes as the reason.
    public var name: String {
        switch self {
        case .appNegotiationNotObserved: "appNegotiationNotObserved"
        case .unrecognisedVersion: "unrecognisedVersion"
        case .serverRefused: "serverRefused"
        case .quicVersionOnlyProposed: "quicVersionOnlyProposed"
        case .unrecognisedQUICVersion: "unrecognisedQUICVersion"
        case .serverAnswerNotRead: "serverAnswerNotRead"
        case .nothingSent: "nothingSent"
        }
    }
}

/// What the TLS version check says of one flow.
public enum TLSVersionAssessment: Sendable, Hashable {
    /// Below the minimum.
    case weak(TLSVersionObservation)
    /// At or above the minimum.
    case acceptable(TLSVersionObservation)
    /// The flow speaks TLS, but its version could not be judged.
    case notAssessed(TLSVersionGap)
    /// No sign of TLS or QUIC.
    case notApplicable

    public init(of flow: StoredFlow, minimum: TLSProtocolVersion) {
        if case .refused(let alert) = flow.serverTLS {
            self = .notAssessed(.serverRefused(alert: alert))
        } else if let observation = TLSVersionObservation(of: flow) {
            self = Self.judge(observation, offer: flow.clientTLS, minimum: minimum)
        } else if let quic = flow.quic {
            self = .notAssessed(quic.end == .client ? .quicVersionOnlyProposed(quic.version) : .unrecognisedQUICVersion(quic.version))
        } else if flow.showsSignOfTLS {
            let empty = flow.tcpPayload == .noneSinceStart && !flow.hasTLSReading && flow.streamOpening == nil
            self = .notAssessed(empty ? .nothingSent : .serverAnswerNotRead)
        } else {
            self = .notApplicable
        }
    }

    private static func judge(
        _ observation: TLSVersionObservation, offer: ClientTLSOffer?, minimum: TLSProtocolVersion
    ) -> TLSVersionAssessment {
        let version = observation.version
        guard version.isPublished else { return .notAssessed(.unrecognisedVersion(version)) }
        if version.isBelow(minimum) { return .weak(observation) }
        // The upstream version answers the relay's ClientHello; it says something of the app
        // only when the app's own offer could not have led anywhere weaker.
        if case .upstreamConnection = observation.basis, let gap = ClientOfferGap(offer: offer, minimum: minimum) {
            return .notAssessed(.appNegotiationNotObserved(gap, upstreamVersion: version))
        }
        return .acceptable(observation)
    }

    var outcome: CheckOutcome<TLSVersionGap> {
        switch self {
        case .weak(let observation): .finding(.weakTLSVersion(observation))
        case .acceptable: .satisfied
        case .notAssessed(let gap): .unassessed(gap)
        case .notApplicable: .notApplicable
        }
    }
}

extension TLSProtocolVersion {
    /// Only published versions are ordered: anything else is never below anything.
    func isBelow(_ minimum: TLSProtocolVersion) -> Bool {
        guard let rank = publishedRank, let minimumRank = minimum.publishedRank else { return false }
        return rank < minimumRank
    }
}
