import TunnelVisionModel

/// What one session's connections to a host did with the local CA, as the pinning check states it.
public enum HostPinningResult: Sendable, Hashable {
    /// A connection completed a handshake on it (`pinningAbsent`).
    case accepted
    /// Connections refused it while another host of the recording accepted it (`pinningObserved`).
    case pinningObserved
    /// Connections refused it and no other host accepted it (`refusalNotToldApart`).
    case refusalNotToldApart(CATrustStore?)
}

/// A host's pinning result in the two sessions. A refusal told apart in one recording and not in
/// the other is a change: the later recording says something else of the host.
public enum PinningComparison: Sendable, Hashable {
    case same(HostPinningResult)
    case changed(earlier: HostPinningResult, later: HostPinningResult)
    /// One session (or both) stated nothing of the host's pinning.
    case notCompared

    init(earlier: HostPinningResult?, later: HostPinningResult?) {
        guard let earlier, let later else {
            self = .notCompared
            return
        }
        self = earlier == later ? .same(earlier) : .changed(earlier: earlier, later: later)
    }

    public var isChange: Bool {
        if case .changed = self { return true }
        return false
    }
}

/// Per announced host, normalised, what one session's pinning check stated. One acceptance
/// outweighs any number of refusals, as the contrary finding does.
struct SessionPinningResults {
    private(set) var byHost: [String: HostPinningResult] = [:]

    init(flows: [StoredFlow], session: Recording) {
        let context = PinningRefusalContext(flows: flows, conditions: session.inspection)
        for flow in flows {
            switch PinningAssessment(of: flow, conditions: session.inspection) {
            case .absent(let host):
                byHost[host] = .accepted
            case .observed(let host):
                guard byHost[host] != .accepted else { continue }
                byHost[host] = context.toldApart(host) ? .pinningObserved : .refusalNotToldApart(context.store)
            case .notAssessed, .notApplicable:
                continue
            }
        }
    }
}
