import TunnelVisionAudit
import TunnelVisionModel

/// How the findings of a session are shown: per requirement, per finding, per check.
/// Findings are numbered F1, F2… in the order they happened, as in an evidence bundle.
enum FindingsPresentation {
    /// The identifiers of the findings among all of the session's.
    static func identifiers(of subset: [Finding], in all: [Finding]) -> [String] {
        subset.compactMap { finding in all.firstIndex(of: finding).map(Finding.identifier(at:)) }
    }

    static func verdict(_ verdict: RequirementVerdict) -> String {
        switch verdict {
        case .contradicted: "contradicted"
        case .observedWithoutContradiction: "observed without contradiction"
        case .notAssessed(.outsideToolScope): "not assessed: outside the tool's scope"
        case .notAssessed(.nothingObserved): "not assessed: nothing observed"
        case .notAssessed(.inspectionOff): "not assessed: inspection off"
        case .notAssessed(.caNotTrusted): "not assessed: CA not trusted"
        case .notAssessed(.refusalNotToldApart): "not assessed: refusals not told apart"
        }
    }

    /// What the finding is about, without a sentence: the host, the version and where it was
    /// read, the protocol, or why the flow has no name.
    static func subject(of evidence: FindingEvidence) -> String {
        switch evidence {
        case .weakTLSVersion(let observation): "\(observation.version.displayText) (\(observation.basis.name))"
        case .cleartextTraffic(let cleartext): cleartext.rawValue
        case .hostNotInAllowlist(let host), .pinningAbsent(let host), .pinningObserved(let host),
             .untrustedIssuerAccepted(let host), .wrongNameAccepted(let host), .expiredCertificateAccepted(let host),
             .refusalNotToldApart(let host, _): host
        case .unnamedFlow(let reason): reason.rawValue
        case .activityBeforeConsent: AuditTables.none
        case .requestsBeforeConsent(let host): host ?? AuditTables.none
        }
    }

    static func page(
        _ assessment: SessionAssessment, session: Recording, projectName: String, flows: Int, style: TextStyle
    ) -> Page {
        let catalogue = assessment.catalogue
        var page = Page(style: style)
        page.heading(Wording.sessionTitle(session, project: projectName) + ": " + Wording.plural(flows, "flow"))
        page.line(Wording.catalogueLine(
            catalogue.identifier, document: catalogue.source.document, version: catalogue.source.version,
            minimum: catalogue.policy.minimumTLSVersion))
        if session.isOpen { page.line(Wording.stillRecording) }
        page.blank()
        page.table(requirements(assessment))
        // An observation without contradiction is bounded by what the tool looks at: said beside it.
        for requirement in assessment.requirements where requirement.verdict == .observedWithoutContradiction {
            if let coverage = requirement.requirement.toolCoverage { page.line("  \(requirement.requirement.id): \(coverage)") }
        }
        page.blank()
        page.table(findings(assessment.findings.findings), orWhenEmpty: Wording.noFindings)
        page.blank()
        page.table(checks(assessment.findings))
        for check in FindingsCheck.allCases {
            let reasons = unassessedReasons(assessment.findings, of: check)
            if !reasons.isEmpty {
                page.line("  \(check.rawValue) not assessed: " + reasons.map { "\($0.reason) \($0.flows)" }.joined(separator: ", "))
            }
        }
        return page
    }

    static func requirements(_ assessment: SessionAssessment) -> TextTable {
        var table = TextTable([.init("REQUIREMENT"), .init("VERDICT"), .init("AGAINST"), .init("FOR"), .init("CHECK")])
        let all = assessment.findings.findings
        for requirement in assessment.requirements {
            table.append([
                requirement.requirement.id, verdict(requirement.verdict),
                list(identifiers(of: requirement.contraryFindings, in: all)),
                list(identifiers(of: requirement.supportingFindings, in: all)),
                requirement.requirement.rule.check?.rawValue ?? AuditTables.none,
            ])
        }
        return table
    }

    static func findings(_ findings: [Finding]) -> TextTable {
        var table = TextTable([.init("ID"), .init("KIND"), .init("ABOUT"), .init("FLOWS", .right), .init("FLOW IDS")])
        for (index, finding) in findings.enumerated() {
            table.append([
                Finding.identifier(at: index), finding.kind.rawValue, subject(of: finding.evidence),
                String(finding.flowIDs.count), flowIDs(finding.flowIDs),
            ])
        }
        return table
    }

    static func checks(_ findings: SessionFindings) -> TextTable {
        var table = TextTable([
            .init("CHECK"), .init("BEHIND A FINDING", .right), .init("NOTHING TO REPORT", .right),
            .init("NOT ASSESSED", .right), .init("NOT APPLICABLE", .right),
        ])
        for check in FindingsCheck.allCases {
            let summary = findings.summary(of: check)
            table.append([
                check.rawValue, String(summary.findingFlows), String(summary.satisfiedFlows),
                String(summary.unassessedFlows), String(summary.notApplicableFlows),
            ])
        }
        return table
    }

    /// Why a check could not look at flows, by reason name in the order the reasons came up,
    /// with how many flows each; reasons that differ only in what they carry are counted as one.
    static func unassessedReasons(_ findings: SessionFindings, of check: FindingsCheck) -> [(reason: String, flows: Int)] {
        let named: [(String, Int)] = switch check {
        case .tlsVersion: findings.tlsVersion.unassessed.map { ($0.reason.name, $0.flowIDs.count) }
        case .encryption: findings.encryption.unassessed.map { ($0.reason.name, $0.flowIDs.count) }
        case .host: findings.host.unassessed.map { ($0.reason.name, $0.flowIDs.count) }
        case .pinning: findings.pinning.unassessed.map { ($0.reason.rawValue, $0.flowIDs.count) }
        case .consent: findings.consent.unassessed.map { ($0.reason.rawValue, $0.flowIDs.count) }
        case .certificateValidation: findings.certificateValidation.unassessed.map { ($0.reason.name, $0.flowIDs.count) }
        }
        var merged: [(reason: String, flows: Int)] = []
        for (reason, flows) in named {
            if let index = merged.firstIndex(where: { $0.reason == reason }) {
                merged[index].flows += flows
            } else {
                merged.append((reason, flows))
            }
        }
        return merged
    }

    /// "3, 8, 12 …" — at most a dozen ids; the JSON has them all.
    static func flowIDs(_ ids: [Int64]) -> String {
        let shown = ids.prefix(12).map(String.init).joined(separator: ", ")
        return ids.count > 12 ? shown + " …" : shown
    }

    private static func list(_ identifiers: [String]) -> String {
        identifiers.isEmpty ? AuditTables.none : identifiers.joined(separator: " ")
    }
}
