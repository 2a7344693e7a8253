import TunnelVisionModel

/// The six things the classifier looks at in every flow, in the order a flow's findings are
/// given. The raw value is what findings.json writes as `check`.
public enum FindingsCheck: String, Sendable, Hashable, Codable, CaseIterable {
    /// Whether the flow was seen to travel in the clear (`cleartextTraffic`).
    case encryption
    /// Which TLS version was negotiated (`weakTLSVersion`).
    case tlsVersion
    /// Whether the destination is one the project allows (`hostNotInAllowlist`, `unnamedFlow`).
    case host
    /// Whether a connection accepted or refused the local CA (`pinningAbsent`, `pinningObserved`,
    /// `refusalNotToldApart`).
    case pinning
    /// Whether the flow began before the user consented (`activityBeforeConsent`).
    case consent
    /// Whether a connection went on over a certificate made to be refused (`untrustedIssuerAccepted`,
    /// `wrongNameAccepted`, `expiredCertificateAccepted`).
    case certificateValidation
}

/// What a finding states. The raw value is catalogue format: a catalogue's rule names these.
public enum FindingKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// A TLS version below the policy's minimum was negotiated.
    case weakTLSVersion
    /// An HTTP request was seen in the clear.
    case cleartextTraffic
    /// The flow's name is not covered by the project's allowlist.
    case hostNotInAllowlist
    /// The flow has no name to judge it by.
    case unnamedFlow
    /// A handshake completed on the local CA's certificate.
    case pinningAbsent
    /// A connection to the host refused the local CA's certificate, and a connection to another
    /// host of the same recording accepted it: the CA is trusted, this host refused it.
    case pinningObserved
    /// A connection to the host refused the local CA's certificate, and no connection to another
    /// host of the recording accepted it: pinning cannot be told from an app that does not trust
    /// the store the CA was declared in.
    case refusalNotToldApart
    /// The flow's first packet came before the first consent marker; where requests were read in
    /// it, its first request did.
    case activityBeforeConsent
    /// Application data followed a certificate from an issuer the phone was never given.
    case untrustedIssuerAccepted
    /// Application data followed a certificate for another name than the one announced.
    case wrongNameAccepted
    /// Application data followed a certificate whose validity had ended.
    case expiredCertificateAccepted

    /// The check whose outcome this kind is: a catalogue rule reads the kinds of one check only.
    public var check: FindingsCheck {
        switch self {
        case .cleartextTraffic: .encryption
        case .weakTLSVersion: .tlsVersion
        case .hostNotInAllowlist, .unnamedFlow: .host
        case .pinningAbsent, .pinningObserved, .refusalNotToldApart: .pinning
        case .activityBeforeConsent: .consent
        case .untrustedIssuerAccepted, .wrongNameAccepted, .expiredCertificateAccepted: .certificateValidation
        }
    }
}

/// A statement with exactly what it is about, and nothing that belongs to a single flow
/// (no instant, no address): flows that prove the same statement make one finding.
public enum FindingEvidence: Sendable, Hashable {
    /// The version that was read and where it was read.
    case weakTLSVersion(TLSVersionObservation)
    /// The protocol that was seen in the clear.
    case cleartextTraffic(CleartextProtocol)
    /// The host, normalised, as the allowlist was asked about it.
    case hostNotInAllowlist(host: String)
    /// Why the flow has no name.
    case unnamedFlow(UnnamedFlowReason)
    /// The announced host, normalised, whose handshake completed on the local CA.
    case pinningAbsent(host: String)
    /// The announced host, normalised, a connection to which refused the local CA while another
    /// host accepted it.
    case pinningObserved(host: String)
    /// The announced host, normalised, a connection to which refused the local CA while no other
    /// host accepted it, and the store the CA was declared installed in (nil: not named).
    case refusalNotToldApart(host: String, store: CATrustStore?)
    /// Nothing more: the instant belongs to each flow, not to the statement. A connection judged
    /// by its first packet, because no request was read in it.
    case activityBeforeConsent
    /// The host, normalised, that requests read in a connection named (nil: they named none), sent
    /// before the first consent marker. The requests themselves belong to each flow
    /// (`SessionFindings.requestsBeforeConsent`), not to the statement.
    case requestsBeforeConsent(host: String?)
    /// The announced host, normalised, a connection to which went on over a leaf of an untrusted issuer.
    case untrustedIssuerAccepted(host: String)
    /// The announced host, normalised, a connection to which went on over a leaf for another name.
    case wrongNameAccepted(host: String)
    /// The announced host, normalised, a connection to which went on over an expired leaf.
    case expiredCertificateAccepted(host: String)

    public var kind: FindingKind {
        switch self {
        case .weakTLSVersion: .weakTLSVersion
        case .cleartextTraffic: .cleartextTraffic
        case .hostNotInAllowlist: .hostNotInAllowlist
        case .unnamedFlow: .unnamedFlow
        case .pinningAbsent: .pinningAbsent
        case .pinningObserved: .pinningObserved
        case .refusalNotToldApart: .refusalNotToldApart
        case .activityBeforeConsent, .requestsBeforeConsent: .activityBeforeConsent
        case .untrustedIssuerAccepted: .untrustedIssuerAccepted
        case .wrongNameAccepted: .wrongNameAccepted
        case .expiredCertificateAccepted: .expiredCertificateAccepted
        }
    }

    /// The host the statement is about, when it is about one.
    public var host: String? {
        switch self {
        case .hostNotInAllowlist(let host), .pinningAbsent(let host), .pinningObserved(let host),
             .untrustedIssuerAccepted(let host), .wrongNameAccepted(let host), .expiredCertificateAccepted(let host),
             .refusalNotToldApart(let host, _): host
        case .requestsBeforeConsent(let host): host
        case .weakTLSVersion, .cleartextTraffic, .unnamedFlow, .activityBeforeConsent: nil
        }
    }
}

/// One statement and the flows that prove it.
public struct Finding: Sendable, Hashable {
    /// What is stated.
    public let evidence: FindingEvidence
    /// The flows that prove it, in the order they happened; never empty.
    public let flowIDs: [Int64]

    public var kind: FindingKind { evidence.kind }

    /// F1, F2…: the identifier of the finding at `index` of a recording's findings, in the order
    /// they happened. The bundle and tvctl both number findings by this one rule.
    public static func identifier(at index: Int) -> String { "F\(index + 1)" }
}
