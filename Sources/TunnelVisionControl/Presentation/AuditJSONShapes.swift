import TunnelVisionAudit
import TunnelVisionModel

/// The `--json` shapes of findings, catalogues and release diffs.
extension JSONShape {
    public struct CatalogueSummary: Encodable, Sendable, Hashable {
        public let identifier: String
        public let document: String
        public let title: String
        public let version: String
        public let date: String
        public let sha256: String
        public let tlsMinimum: String
        public let tlsSource: String
        public let requirementCount: Int

        init(_ catalogue: RequirementCatalogue) {
            identifier = catalogue.identifier
            document = catalogue.source.document
            title = catalogue.source.title
            version = catalogue.source.version
            date = catalogue.source.date
            sha256 = catalogue.source.sha256
            tlsMinimum = catalogue.policy.minimumTLSVersion.displayText
            tlsSource = "\(catalogue.tlsSource.document) \(catalogue.tlsSource.version)"
            requirementCount = catalogue.requirements.count
        }
    }

    public struct CoverageCounts: Encodable, Sendable, Hashable {
        public let check: String
        public let findingFlows: Int
        public let satisfiedFlows: Int
        public let unassessedFlows: Int
        public let notApplicableFlows: Int

        init(_ summary: CheckCoverageSummary) {
            check = summary.check.rawValue
            findingFlows = summary.findingFlows
            satisfiedFlows = summary.satisfiedFlows
            unassessedFlows = summary.unassessedFlows
            notApplicableFlows = summary.notApplicableFlows
        }
    }

    public struct UnassessedReason: Encodable, Sendable, Hashable {
        public let reason: String
        public let flowCount: Int
    }

    /// One check's counts and why it could not look at the flows it did not assess.
    public struct CheckShape: Encodable, Sendable, Hashable {
        public let check: String
        public let findingFlows: Int
        public let satisfiedFlows: Int
        public let unassessedFlows: Int
        public let notApplicableFlows: Int
        public let unassessed: [UnassessedReason]

        init(_ findings: SessionFindings, check: FindingsCheck) {
            let counts = CoverageCounts(findings.summary(of: check))
            self.check = counts.check
            findingFlows = counts.findingFlows
            satisfiedFlows = counts.satisfiedFlows
            unassessedFlows = counts.unassessedFlows
            notApplicableFlows = counts.notApplicableFlows
            unassessed = FindingsPresentation.unassessedReasons(findings, of: check).map { UnassessedReason(reason: $0.reason, flowCount: $0.flows) }
        }
    }

    public struct RequirementShape: Encodable, Sendable, Hashable {
        public let id: String
        public let title: String
        public let aspect: String
        public let testDepth: String
        public let rule: String
        public let contraryKinds: [String]
        public let supportingKinds: [String]
        public let toolCoverage: String?

        init(_ requirement: Requirement) {
            id = requirement.id
            title = requirement.title
            aspect = "\(requirement.aspect.number) \(requirement.aspect.name)"
            testDepth = requirement.testDepth.rawValue
            rule = requirement.rule.name.rawValue
            contraryKinds = requirement.rule.contraryKinds.map(\.rawValue)
            supportingKinds = requirement.rule.supportingKinds.map(\.rawValue)
            toolCoverage = requirement.toolCoverage
        }
    }

    public struct RequirementVerdictShape: Encodable, Sendable, Hashable {
        public let requirement: RequirementShape
        /// contradicted, observedWithoutContradiction or notAssessed.
        public let verdict: String
        public let notAssessedReason: String?
        public let contraryFindings: [String]
        public let supportingFindings: [String]
        public let coverage: CoverageCounts?

        init(_ assessment: RequirementAssessment, all: [Finding]) {
            requirement = RequirementShape(assessment.requirement)
            switch assessment.verdict {
            case .contradicted: verdict = "contradicted"; notAssessedReason = nil
            case .observedWithoutContradiction: verdict = "observedWithoutContradiction"; notAssessedReason = nil
            case .notAssessed(let reason): verdict = "notAssessed"; notAssessedReason = reason.rawValue
            }
            contraryFindings = FindingsPresentation.identifiers(of: assessment.contraryFindings, in: all)
            supportingFindings = FindingsPresentation.identifiers(of: assessment.supportingFindings, in: all)
            coverage = assessment.coverage.map(CoverageCounts.init)
        }
    }

    public struct FindingShape: Encodable, Sendable, Hashable {
        public let id: String
        public let kind: String
        public let check: String
        public let host: String?
        public let tlsVersion: String?
        public let tlsVersionBasis: String?
        public let cleartextProtocol: String?
        public let unnamedReason: String?
        public let flowIDs: [Int64]

        init(_ finding: Finding, index: Int) {
            id = FindingsPresentation.identifier(ofFindingAt: index)
            kind = finding.kind.rawValue
            check = finding.kind.check.rawValue
            host = finding.evidence.host
            var version: TLSVersionObservation?
            var cleartext: CleartextProtocol?
            var unnamed: UnnamedFlowReason?
            switch finding.evidence {
            case .weakTLSVersion(let observation): version = observation
            case .cleartextTraffic(let proto): cleartext = proto
            case .unnamedFlow(let reason): unnamed = reason
            case .hostNotInAllowlist, .pinningAbsent, .pinningObserved, .activityBeforeConsent,
                 .untrustedIssuerAccepted, .wrongNameAccepted, .expiredCertificateAccepted: break
            }
            tlsVersion = version?.version.displayText
            tlsVersionBasis = version?.basis.name
            cleartextProtocol = cleartext?.rawValue
            unnamedReason = unnamed?.rawValue
            flowIDs = finding.flowIDs
        }
    }

    public struct SessionFindingsShape: Encodable, Sendable, Hashable {
        public let session: Session
        public let catalogue: CatalogueSummary
        public let flowCount: Int
        public let requirements: [RequirementVerdictShape]
        public let findings: [FindingShape]
        public let checks: [CheckShape]

        init(_ assessment: SessionAssessment, session: Session, flowCount: Int) {
            self.session = session
            catalogue = CatalogueSummary(assessment.catalogue)
            self.flowCount = flowCount
            let all = assessment.findings.findings
            requirements = assessment.requirements.map { RequirementVerdictShape($0, all: all) }
            findings = all.enumerated().map { FindingShape($1, index: $0) }
            checks = FindingsCheck.allCases.map { CheckShape(assessment.findings, check: $0) }
        }
    }
}
