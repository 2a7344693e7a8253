import TunnelVisionModel

extension RelayReport {
    /// What the flow keeps of this connection: the typed decision and event, the event's payload
    /// in `alert` and `reason`, the upstream's verification and what the phone was shown.
    public var facts: RelayFacts {
        var facts = RelayFacts(
            decision: decision?.kind ?? .undecided, event: event?.kind, keyLog: keyLog,
            presented: presentation, serverNameAsSent: serverNameAsSent)
        facts.requests = requests
        facts.requestsNotKept = requestsNotKept
        if case .notInspectable(let alert)? = outcome { facts.alert = alert }
        switch event {
        case .phoneClosingAlertDuringHandshake(let alert)?, .phoneRefusedMirroredCertificate(let alert)?:
            facts.alert = alert
        case .relaySentAlert(let alert, let reason)?:
            facts.alert = alert
            facts.reason = reason
        case .handedToPlainUpstream(let reason)?, .relayFailed(let reason)?:
            facts.reason = reason
        case .upstreamRefusedByPolicy(let refusal)?:
            facts.reason = refusal.rawValue
        default: break
        }
        if let upstream {
            facts.upstreamVerified = upstream.certificateVerified
            facts.upstreamVerification = upstream.verification
            facts.upstreamApplicationProtocol = upstream.applicationProtocol
        }
        return facts
    }

    /// What the audit reads of this connection beside the flow's status, through the same facts
    /// the history stores, so that the two cannot part.
    public var verdict: RelayVerdict? { facts.verdict }

    /// The report as the flow engine applies it. The relay's reading of the server is the flow's
    /// only while a termination owns the flow: a handover to a plain upstream gives it back.
    public var flowUpdate: RelayFlowUpdate {
        var ownsFlow = false
        if case .terminate? = decision { ownsFlow = true }
        if case .handedToPlainUpstream? = event { ownsFlow = false }
        return .reported(facts, outcome: outcome?.tlsStatus, upstream: ownsFlow ? upstream?.negotiation : nil)
    }
}
