import TunnelVisionModel

/// Why a flow that may speak TLS says nothing about pinning.
public enum PinningGap: String, Sendable, Hashable, CaseIterable {
    /// The session was recorded with inspection off: the relay tried nothing.
    case inspectionOff
    /// The recording presented leaves made to be refused: a refusal there says nothing of pinning.
    case validationRecording
    /// The phone did not trust the local CA: a refusal would prove nothing.
    case caNotTrusted
    /// An inspection outcome exists, but no name was announced to state it about.
    case outcomeWithoutAnnouncedName
    /// QUIC is never inspected.
    case quicNotInspected
    /// TLS over TCP the relay did not inspect (no announced name, or not offered to it).
    case noInspectionOutcome
    /// The server's own certificate did not verify, so the phone was shown an untrusted issuer's
    /// leaf in place of the local CA's: what it did says nothing of pinning.
    case upstreamCertificateMirrored
}

/// What the pinning check says of one flow. It reads only the outcome the relay recorded and
/// claims nothing about why a connection accepted or refused.
public enum PinningAssessment: Sendable, Hashable {
    /// A handshake completed on the local CA's certificate for this announced host, normalised.
    case absent(host: String)
    /// A connection to this announced host, normalised, refused the local CA's certificate.
    case observed(host: String)
    /// Applicable, but nothing can be said.
    case notAssessed(PinningGap)
    /// No sign of TLS or QUIC, or an HTTP request seen in the clear.
    case notApplicable

    public init(of flow: StoredFlow, conditions: InspectionConditions) {
        let state = flow.state
        let applies = state.hasInspectionOutcome
            || (!state.openedWithHTTPRequest && (state.showsSignOfTLS || state.quic != nil))
        // The conditions gate everything after applicability: an outcome recorded in a session
        // declared without inspection, or without a trusted CA, is not reported.
        if !applies {
            self = .notApplicable
        } else if !conditions.inspectionEnabled {
            self = .notAssessed(.inspectionOff)
        } else if conditions.mode.defect != nil {
            self = .notAssessed(.validationRecording)
        } else if !conditions.caTrusted {
            self = .notAssessed(.caNotTrusted)
        } else if Self.showsMirror(state.relay) {
            self = .notAssessed(.upstreamCertificateMirrored)
        } else if state.hasInspectionOutcome {
            guard let host = state.announcedHost else {
                self = .notAssessed(.outcomeWithoutAnnouncedName)
                return
            }
            self = state.tlsStatus == .inspected ? .absent(host: host) : .observed(host: host)
        } else {
            self = .notAssessed(state.quic != nil ? .quicNotInspected : .noInspectionOutcome)
        }
    }

    private static func showsMirror(_ record: RelayVerdict?) -> Bool {
        switch record {
        case .presentedMirror?, .refusedMirroredCertificate?: true
        default: false
        }
    }

    /// A refusal is pinning observed only when the recording shows the CA accepted by another
    /// host (`PinningRefusalContext`); otherwise it cannot be told from an app that ignores the store.
    /// A context of nil states every refusal as observed: the caller settles it once the
    /// recording's acceptances are all known.
    func outcome(in context: PinningRefusalContext?) -> CheckOutcome<PinningGap> {
        switch self {
        case .absent(let host): .finding(.pinningAbsent(host: host))
        case .observed(let host):
            if let context, !context.toldApart(host) {
                .finding(.refusalNotToldApart(host: host, store: context.store))
            } else {
                .finding(.pinningObserved(host: host))
            }
        case .notAssessed(let gap): .unassessed(gap)
        case .notApplicable: .notApplicable
        }
    }
}
