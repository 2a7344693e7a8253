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
        var reading = Reading(session: session)
        flows.forEach { reading.add($0) }
        self = reading.results
    }

    private init(byHost: [String: HostPinningResult]) {
        self.byHost = byHost
    }

    /// Folded one flow at a time. A refusal is read once the walk is over, when every host that
    /// accepted the CA, and so could tell it apart, is known.
    struct Reading {
        private let conditions: InspectionConditions
        private var accepting = Set<String>()
        private var refusing = Set<String>()

        init(session: Recording) {
            conditions = session.inspection
        }

        mutating func add(_ flow: StoredFlow) {
            switch PinningAssessment(of: flow, conditions: conditions) {
            case .absent(let host): accepting.insert(host)
            case .observed(let host): refusing.insert(host)
            case .notAssessed, .notApplicable: return
            }
        }

        var results: SessionPinningResults {
            let context = PinningRefusalContext(acceptingHosts: accepting, conditions: conditions)
            var byHost: [String: HostPinningResult] = [:]
            for host in refusing where !accepting.contains(host) {
                byHost[host] = context.toldApart(host) ? .pinningObserved : .refusalNotToldApart(context.store)
            }
            for host in accepting { byHost[host] = .accepted }
            return SessionPinningResults(byHost: byHost)
        }
    }
}
