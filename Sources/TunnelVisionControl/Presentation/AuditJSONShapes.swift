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
}
