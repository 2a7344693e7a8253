/// Flows a check applies to but could not look at, all for the same reason.
public struct UnassessedFlows<Gap: Sendable & Hashable>: Sendable, Hashable {
    /// Why the check could not look at them.
    public let reason: Gap
    /// In the order they happened; never empty.
    public let flowIDs: [Int64]
}

/// How far one check got: together with the flows behind its findings, every flow of the
/// session is in exactly one of these places.
public struct CheckCoverage<Gap: Sendable & Hashable>: Sendable, Hashable {
    /// Looked at, nothing to report.
    public let satisfiedFlowIDs: [Int64]
    /// Applicable, but could not be looked at: grouped by reason, in the order the reasons first came up.
    public let unassessed: [UnassessedFlows<Gap>]
    /// Not what this check looks at.
    public let notApplicableFlowIDs: [Int64]

    /// Every flow the check could not look at, whatever the reason.
    public var unassessedFlowCount: Int { unassessed.reduce(0) { $0 + $1.flowIDs.count } }
}

/// The counts of one check, for a report or a requirement: they add up to the session's flows.
public struct CheckCoverageSummary: Sendable, Hashable {
    public let check: FindingsCheck
    /// Flows behind a finding of this check.
    public let findingFlows: Int
    /// Flows looked at with nothing to report.
    public let satisfiedFlows: Int
    /// Flows that could not be looked at.
    public let unassessedFlows: Int
    /// Flows the check does not apply to.
    public let notApplicableFlows: Int

    public init(check: FindingsCheck, findingFlows: Int, satisfiedFlows: Int, unassessedFlows: Int, notApplicableFlows: Int) {
        self.check = check
        self.findingFlows = findingFlows
        self.satisfiedFlows = satisfiedFlows
        self.unassessedFlows = unassessedFlows
        self.notApplicableFlows = notApplicableFlows
    }

    public var totalFlows: Int { findingFlows + satisfiedFlows + unassessedFlows + notApplicableFlows }
}

/// Where one flow lands in one check.
enum CheckOutcome<Gap: Sendable & Hashable>: Sendable, Hashable {
    case finding(FindingEvidence)
    /// Several statements about one flow: a connection that carried requests for several hosts.
    case findings([FindingEvidence])
    case satisfied
    case unassessed(Gap)
    case notApplicable

    var findings: [FindingEvidence] {
        switch self {
        case .finding(let evidence): [evidence]
        case .findings(let evidence): evidence
        case .satisfied, .unassessed, .notApplicable: []
        }
    }
}

/// Gathers one check's outcomes flow by flow, keeping the order in which things happened.
struct CoverageBuilder<Gap: Sendable & Hashable> {
    private var satisfied: [Int64] = []
    private var notApplicable: [Int64] = []
    private var unassessedReasons: [Gap] = []
    private var unassessedFlows: [Gap: [Int64]] = [:]

    /// Records the flow and hands back the statements it proves, if any.
    mutating func record(_ outcome: CheckOutcome<Gap>, flowID: Int64) -> [FindingEvidence] {
        switch outcome {
        case .finding, .findings:
            return outcome.findings
        case .satisfied:
            satisfied.append(flowID)
        case .notApplicable:
            notApplicable.append(flowID)
        case .unassessed(let gap):
            if unassessedFlows[gap] == nil { unassessedReasons.append(gap) }
            unassessedFlows[gap, default: []].append(flowID)
        }
        return []
    }

    var coverage: CheckCoverage<Gap> {
        CheckCoverage(
            satisfiedFlowIDs: satisfied,
            unassessed: unassessedReasons.map { UnassessedFlows(reason: $0, flowIDs: unassessedFlows[$0] ?? []) },
            notApplicableFlowIDs: notApplicable)
    }
}
