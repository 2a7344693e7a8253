import TunnelVisionModel

/// What one session's connections to a host did with the defective certificate its recording
/// presented, judged by the certificate validation check.
public enum HostValidationResult: Sendable, Hashable {
    /// At least one connection went on over it.
    case accepted(CertificateDefect)
    /// Connections answered it with an alert, and none went on over it.
    case refused(CertificateDefect)

    public var defect: CertificateDefect {
        switch self {
        case .accepted(let defect), .refused(let defect): defect
        }
    }
}

/// Why a host's validation results were not compared.
public enum ValidationComparisonGap: Sendable, Hashable {
    /// The earlier session judged no connection to the host (not a validation recording, or nothing the check could look at).
    case notJudgedInEarlierSession
    case notJudgedInLaterSession
    case notJudgedInEitherSession
    /// Both judged it, over certificates with different defects: not the same test.
    case differentDefects(earlier: CertificateDefect, later: CertificateDefect)
}

/// A host's validation result in the two sessions.
public enum ValidationComparison: Sendable, Hashable {
    case same(HostValidationResult)
    /// The same defect presented, and the connections did otherwise.
    case changed(earlier: HostValidationResult, later: HostValidationResult)
    case notCompared(ValidationComparisonGap)

    init(earlier: HostValidationResult?, later: HostValidationResult?) {
        switch (earlier, later) {
        case (nil, nil): self = .notCompared(.notJudgedInEitherSession)
        case (nil, _?): self = .notCompared(.notJudgedInEarlierSession)
        case (_?, nil): self = .notCompared(.notJudgedInLaterSession)
        case (let earlier?, let later?):
            if earlier.defect != later.defect {
                self = .notCompared(.differentDefects(earlier: earlier.defect, later: later.defect))
            } else {
                self = earlier == later ? .same(earlier) : .changed(earlier: earlier, later: later)
            }
        }
    }

    public var isChange: Bool {
        if case .changed = self { return true }
        return false
    }
}

/// Per announced host, normalised, what one session's validation recording showed.
struct SessionValidationResults {
    private(set) var byHost: [String: HostValidationResult] = [:]

    private let conditions: InspectionConditions

    init(flows: [StoredFlow], session: Recording) {
        self.init(session: session)
        flows.forEach { add($0) }
    }

    /// None yet: `add` folds in the session's flows one at a time.
    init(session: Recording) {
        conditions = session.inspection
    }

    mutating func add(_ flow: StoredFlow) {
        switch CertificateValidationAssessment(of: flow, conditions: conditions) {
        case .accepted(let defect, let host):
            byHost[host] = .accepted(defect)
        case .refused:
            guard let defect = conditions.mode.defect, let host = flow.state.announcedHost else { return }
            // One acceptance outweighs any number of refusals: it is what the finding states.
            if byHost[host] == nil { byHost[host] = .refused(defect) }
        case .notAssessed, .notApplicable:
            return
        }
    }
}
