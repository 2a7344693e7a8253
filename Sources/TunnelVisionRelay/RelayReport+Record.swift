import TunnelVisionModel

extension RelayReport {
    /// What the flow keeps of this connection beside its status (issue 13), read through the
    /// same words the history stores (`decision.name`, `event.kind`), so that the two cannot part.
    public var record: RelayRecord? {
        var alert: UInt8?
        if case .notInspectable(let code)? = outcome { alert = code }
        if case .phoneClosingAlertDuringHandshake(let code)? = event { alert = code }
        if case .relaySentAlert(let code, _)? = event { alert = code }
        if case .phoneRefusedMirroredCertificate(let code)? = event { alert = code }
        return RelayRecord(decision: decision?.name ?? "undecided", event: event?.kind, alert: alert, presented: presentation?.rawValue)
    }
}
