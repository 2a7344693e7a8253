import TunnelVisionModel

/// The relay's messages about the flows it handles, applied to the live flow of the
/// same canonical 5-tuple so that they reach the history in the same batch as the flow.
extension FlowEngine {
    /// False when no live flow has the key (its SYN not read yet): the caller keeps the update.
    public mutating func apply(_ update: RelayFlowUpdate, to key: FlowKey) -> Bool {
        guard let slot = table.slot(for: key), key.proto == .tcp else { return false }
        switch update {
        case .answering:
            table[slot].relayOwnsServerSide = true
            // Anything read of the server side so far can only be our own server's first bytes.
            forgetPassiveServerReading(slot: slot)
        case .rolledBack:
            table[slot].relayOwnsServerSide = false
            if table[slot].state.serverTLS?.negotiation?.source == .upstreamConnection { table[slot].state.serverTLS = nil }
        case .reported(let facts, let outcome, let upstream):
            var state = table[slot].state
            if let outcome { state.tlsStatus = state.tlsStatus.raised(to: outcome) }
            // Held only while this termination owns the flow: a handover to a plain upstream
            // makes the passive reading of the real server the flow's again.
            if table[slot].relayOwnsServerSide, let upstream {
                state.serverTLS = .negotiated(upstream)
                state.serverCertificates = nil
            }
            table[slot].state = state
            table[slot].relayFacts = facts
            table[slot].relayFactsDirty = true
        }
        table.markDirty(slot)
        return true
    }

    mutating func forgetPassiveServerReading(slot: Int) {
        if table[slot].state.serverTLS?.negotiation?.source != .upstreamConnection { table[slot].state.serverTLS = nil }
        table[slot].state.serverCertificates = nil
    }
}

extension LiveFlow {
    /// The relay's facts, when the next batch must carry them.
    var relayFactsToWrite: RelayFactsRecord? {
        guard relayFactsDirty, let relayFacts else { return nil }
        return RelayFactsRecord(flow: handle, facts: relayFacts)
    }
}
