import TunnelVisionModel

/// Why a requirement was not assessed.
public enum NotAssessedReason: String, Sendable, Hashable, CaseIterable {
    /// Nothing this tool observes bears on the requirement.
    case outsideToolScope
    /// The check behind it looked at nothing that could speak either way.
    case nothingObserved
    /// Most of what the check could not look at was recorded with TLS inspection off.
    case inspectionOff
    /// Most of it was recorded without the local CA declared trusted on the phone.
    case caNotTrusted
    /// The connections that could be read refused the local CA, and none to another host accepted
    /// it: pinning cannot be told from an app that does not trust the store the CA was installed in.
    case refusalNotToldApart
}

/// What the traffic showed about a requirement. It is not the document's test result (PASS,
/// INCONCLUSIVE, FAIL, N/A): that is the assessor's to give.
public enum RequirementVerdict: Sendable, Hashable {
    /// A finding of a contrary kind exists, whatever else was seen.
    case contradicted
    /// No contrary finding, and something was looked at: bounded by the requirement's toolCoverage.
    case observedWithoutContradiction
    case notAssessed(NotAssessedReason)
}

/// One requirement and what the session shows about it.
public struct RequirementAssessment: Sendable, Hashable {
    public let requirement: Requirement
    public let verdict: RequirementVerdict
    /// Findings of the rule's contrary kinds, in the session's order.
    public let contraryFindings: [Finding]
    /// Findings of the rule's supporting kinds, given even when the requirement is contradicted.
    public let supportingFindings: [Finding]
    /// The counts of the check behind the rule; nil when the rule reads none.
    public let coverage: CheckCoverageSummary?

    init(requirement: Requirement, findings: SessionFindings) {
        let rule = requirement.rule
        self.requirement = requirement
        contraryFindings = findings.findings.filter { rule.contraryKinds.contains($0.kind) }
        supportingFindings = findings.findings.filter { rule.supportingKinds.contains($0.kind) }
        coverage = rule.check.map(findings.summary(of:))
        if !rule.readsFindings {
            verdict = .notAssessed(.outsideToolScope)
        } else if !contraryFindings.isEmpty {
            verdict = .contradicted
        } else if (coverage?.satisfiedFlows ?? 0) > 0 || !supportingFindings.isEmpty {
            verdict = .observedWithoutContradiction
        } else {
            verdict = .notAssessed(Self.dominantReason(check: rule.check, findings: findings))
        }
    }

    /// The reason that kept the most connections from the check, where that reason is a condition
    /// of the recording the technician can change; otherwise "nothing observed".
    private static func dominantReason(check: FindingsCheck?, findings: SessionFindings) -> NotAssessedReason {
        if check == .pinning, findings.findings.contains(where: { $0.kind == .refusalNotToldApart }) {
            return .refusalNotToldApart
        }
        guard check == .pinning,
              let dominant = findings.pinning.unassessed.max(by: { $0.flowIDs.count < $1.flowIDs.count }) else {
            return .nothingObserved
        }
        switch dominant.reason {
        case .inspectionOff: return .inspectionOff
        case .caNotTrusted: return .caNotTrusted
        default: return .nothingObserved
        }
    }
}

/// A session classified with a catalogue's thresholds, and each of its requirements judged.
public struct SessionAssessment: Sendable, Hashable {
    public let catalogue: RequirementCatalogue
    public let findings: SessionFindings
    /// In the catalogue's order.
    public let requirements: [RequirementAssessment]

    public init(
        catalogue: RequirementCatalogue, flows: [StoredFlow], project: AuditProject,
        session: Recording, markers: [SessionMarker]
    ) {
        self.init(
            catalogue: catalogue,
            findings: FindingsClassifier.classify(
                flows: flows, project: project, session: session, markers: markers, policy: catalogue.policy))
    }

    /// The flows walked once, never held (`FlowWalk`).
    public init(
        catalogue: RequirementCatalogue, flows: FlowWalk, project: AuditProject,
        session: Recording, markers: [SessionMarker]
    ) {
        self.init(
            catalogue: catalogue,
            findings: FindingsClassifier.classify(
                flows: flows, project: project, session: session, markers: markers, policy: catalogue.policy))
    }

    /// The findings must have been classified with `catalogue.policy`.
    init(catalogue: RequirementCatalogue, findings: SessionFindings) {
        self.catalogue = catalogue
        self.findings = findings
        requirements = catalogue.requirements.map { RequirementAssessment(requirement: $0, findings: findings) }
    }
}
