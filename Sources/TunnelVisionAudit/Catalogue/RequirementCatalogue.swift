import Foundation
import TunnelVisionModel

/// One version of a requirements document: for each requirement, its id and title as the
/// document gives them, and what this tool can say about it. A miswritten one is refused when
/// it is loaded, never halfway through an assessment.
public struct RequirementCatalogue: Sendable, Hashable {
    /// The only format this tool reads.
    public static let formatVersion = 1

    /// The file name without `.json`: what `AuditProject.catalogueVersion` names.
    public let identifier: String
    /// The requirements document.
    public let source: CatalogueSource
    /// The document the TLS minimum comes from.
    public let tlsSource: CatalogueSource
    /// The thresholds a session is classified with.
    public let policy: FindingsPolicy
    /// In the catalogue's order, which is the document's.
    public let requirements: [Requirement]

    public init(data: Data) throws(RequirementCatalogueError) {
        let document = try CatalogueDocument.decode(data)
        guard document.formatVersion == Self.formatVersion else {
            throw .unsupportedFormatVersion(found: document.formatVersion)
        }
        identifier = try CatalogueField.text(document.identifier, key: "identifier", in: .catalogue)
        guard Self.isIdentifierName(identifier) else { throw .identifierNotAName(identifier) }
        source = try CatalogueField.source(document.source, in: .source)
        let minimum = document.tls?.minimumVersion
        guard let version = minimum.flatMap(TLSProtocolVersion.init(catalogueText:)),
              let policy = FindingsPolicy(minimumTLSVersion: version) else {
            throw .invalidTLSMinimum(minimum)
        }
        self.policy = policy
        tlsSource = try CatalogueField.source(document.tls?.source, in: .tlsSource)

        let entries = document.requirements ?? []
        guard !entries.isEmpty else { throw .noRequirements }
        var requirements: [Requirement] = []
        var ids: Set<String> = []
        for (index, entry) in entries.enumerated() {
            let requirement = try Requirement(entry, position: index + 1)
            guard ids.insert(requirement.id).inserted else {
                throw .repeatedRequirement(RequirementReference(position: index + 1, id: requirement.id))
            }
            requirements.append(requirement)
        }
        self.requirements = requirements
    }

    /// Whether the text can be a catalogue identifier: a file name in the catalogue directory,
    /// never a path ("../../etc/passwd") and never hidden.
    public static func isIdentifierName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, text.unicodeScalars.count <= 64,
              ("0"..."9").contains(first) || ("a"..."z").contains(first) || ("A"..."Z").contains(first) else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar)
        }
    }

    public func requirement(id: String) -> Requirement? {
        requirements.first { $0.id == id }
    }
}
