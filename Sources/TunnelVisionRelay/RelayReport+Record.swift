import TunnelVisionModel

extension RelayReport {
    /// What the flow keeps of this connection beside its status (issue 13): nothing when the
    /// phone was seen to accept (the status `inspected` says it) or the connection ended normally.
    public var record: RelayRecord? {
        switch outcome {
        case .notInspectable(let alert)?: return .refused(alert: alert)
        case .notInspectableRemembered?: return .spliced(.hostRemembered)
        case .inspected?: return nil
        case nil: break
        }
        // The model names the relay's reasons by the same words; a reason it does not know says nothing.
        if case .splice(let reason)? = decision { return RelaySpliceReason(rawValue: reason.rawValue).map(RelayRecord.spliced) }
        switch event {
        case .phoneClosedAfterHandshake?, .phoneResetAfterHandshake?: return .closedAfterHandshake
        case .phoneLeftDuringHandshake?, .phoneClosingAlertDuringHandshake?: return .closedDuringHandshake
        case .serverClosedBeforePhoneData?, .upstreamUnreachable?, .handedToPlainUpstream?, .relayFailed?: return .relayFailed
        case .closed?, nil: return nil
        }
    }
}

