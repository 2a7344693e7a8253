import TunnelVisionModel

/// Why a flow that may speak TLS says nothing about whether a defective certificate was refused.
public enum CertificateValidationGap: Sendable, Hashable {
    /// The recording presented no defective certificate: inspection off, or the installed CA's own leaves.
    case noDefectPresented
    /// QUIC is never inspected.
    case quicNotInspected
    /// The relay recorded an outcome, but no name was announced to state it about.
    case outcomeWithoutAnnouncedName
    /// The leaf was signed by the installed CA, which the phone was not declared to trust: the
    /// refusal may be of the CA and not of the defect.
    case refusalOfUntrustedCA
    /// The phone completed the handshake and closed without data: refused after the handshake,
    /// or not needed; the two cannot be told apart.
    case closedAfterHandshake
    /// The phone left during the handshake without a refusing alert, which has other causes than a refusal.
    case closedDuringHandshake
    /// The relay's side or the server's ended the connection before the phone's answer could be read.
    case relayFailed
    /// The server's own certificate did not verify: the phone was shown a certificate of an
    /// untrusted issuer in place of the recording's defect, and refused it.
    case upstreamCertificateMirrored
    /// The relay passed the connection through untouched, for this reason: nothing defective was presented.
    case notInspected(RelaySpliceReason)
    /// TLS over TCP of which the relay recorded nothing.
    case noInspectionOutcome

    /// The key findings.json writes as the reason.
    public var name: String {
        switch self {
        case .noDefectPresented: "noDefectPresented"
        case .quicNotInspected: "quicNotInspected"
        case .outcomeWithoutAnnouncedName: "outcomeWithoutAnnouncedName"
        case .refusalOfUntrustedCA: "refusalOfUntrustedCA"
        case .closedAfterHandshake: "closedAfterHandshake"
        case .closedDuringHandshake: "closedDuringHandshake"
        case .relayFailed: "relayFailed"
        case .upstreamCertificateMirrored: "upstreamCertificateMirrored"
        case .notInspected: "notInspected"
        case .noInspectionOutcome: "noInspectionOutcome"
        }
    }
}

/// What the certificate validation check says of one flow. It reads only what the relay
/// recorded when it presented the recording's defective leaf, and claims nothing about how the
/// app validates: only whether the connection went on.
public enum CertificateValidationAssessment: Sendable, Hashable {
    /// Application data followed the defective leaf, for this announced host, normalised.
    case accepted(CertificateDefect, host: String)
    /// The phone answered the defective leaf with an alert.
    case refused
    /// Applicable, but nothing can be said.
    case notAssessed(CertificateValidationGap)
    /// No sign of TLS or QUIC, or an HTTP request seen in the clear.
    case notApplicable

    public init(of flow: StoredFlow, conditions: InspectionConditions) {
        let state = flow.state
        let applies = state.hasInspectionOutcome || state.relay != nil
            || (!state.openedWithHTTPRequest && (state.showsSignOfTLS || state.quic != nil))
        guard applies else { self = .notApplicable; return }
        // A mirror is an untrusted issuer's leaf, whatever the recording asked: continuing over it
        // is that defect accepted.
        if case .presentedMirror? = state.relay, state.tlsStatus == .inspected {
            guard let host = state.announcedHost else { self = .notAssessed(.outcomeWithoutAnnouncedName); return }
            self = .accepted(.untrustedIssuer, host: host)
            return
        }
        guard let defect = conditions.mode.defect else { self = .notAssessed(.noDefectPresented); return }
        if state.tlsStatus == .inspected {
            guard let host = state.announcedHost else { self = .notAssessed(.outcomeWithoutAnnouncedName); return }
            self = .accepted(defect, host: host)
            return
        }
        switch state.relay {
        case .refused?:
            // Only the untrusted issuer's leaf is refused for its defect alone: the other two
            // carry the installed CA, and a phone that does not trust it refuses them for that.
            self = defect == .untrustedIssuer || conditions.caTrusted ? .refused : .notAssessed(.refusalOfUntrustedCA)
        case .closedAfterHandshake?:
            self = .notAssessed(.closedAfterHandshake)
        case .closedDuringHandshake?:
            self = .notAssessed(.closedDuringHandshake)
        case .relayFailed?:
            self = .notAssessed(.relayFailed)
        case .refusedMirroredCertificate?, .presentedMirror?:
            self = .notAssessed(.upstreamCertificateMirrored)
        case .spliced(let reason)?:
            self = .notAssessed(.notInspected(reason))
        case nil:
            if state.tlsStatus == .notInspectable {
                // Refused without an alert recorded in this connection: only a host remembered from earlier.
                self = .notAssessed(.notInspected(.hostRemembered))
            } else {
                self = .notAssessed(state.quic != nil ? .quicNotInspected : .noInspectionOutcome)
            }
        }
    }

    var outcome: CheckOutcome<CertificateValidationGap> {
        switch self {
        case .accepted(.untrustedIssuer, let host): .finding(.untrustedIssuerAccepted(host: host))
        case .accepted(.wrongName, let host): .finding(.wrongNameAccepted(host: host))
        case .accepted(.expired, let host): .finding(.expiredCertificateAccepted(host: host))
        case .refused: .satisfied
        case .notAssessed(let gap): .unassessed(gap)
        case .notApplicable: .notApplicable
        }
    }
}
