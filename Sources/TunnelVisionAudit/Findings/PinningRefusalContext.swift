import TunnelVisionModel

/// What one recording shows of the CA as a whole, so that a refusal can be read. Most refusals
/// are not pinning: an app that does not trust the store the CA was installed in refuses it with
/// the same alert as an app that pins. Only an acceptance of the CA by another host in the same
/// recording (one declaration of the store) shows that the phone's app trusts the CA, and so
/// that this host's refusal is its own.
public struct PinningRefusalContext: Sendable, Hashable {
    /// The announced hosts, normalised, that completed a handshake on the local CA.
    public let acceptingHosts: Set<String>
    /// Where the recording declared the CA installed; nil when it named none.
    public let store: CATrustStore?

    public init(flows: [StoredFlow], conditions: InspectionConditions) {
        var hosts = Set<String>()
        for flow in flows {
            if case .absent(let host) = PinningAssessment(of: flow, conditions: conditions) { hosts.insert(host) }
        }
        self.init(acceptingHosts: hosts, conditions: conditions)
    }

    /// `acceptingHosts`: those a walk over the recording found, as `init(flows:conditions:)` finds them.
    init(acceptingHosts: Set<String>, conditions: InspectionConditions) {
        self.acceptingHosts = acceptingHosts
        store = conditions.caStore
    }

    /// Another host than this one accepted the CA in the recording.
    public func toldApart(_ host: String) -> Bool {
        acceptingHosts.contains { $0 != host }
    }
}
