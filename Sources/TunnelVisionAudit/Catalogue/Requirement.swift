/// A document a catalogue cites, as it identifies itself, and the digest of the PDF it was checked against.
/// Encodable because findings.json cites it key for key.
public struct CatalogueSource: Encodable, Sendable, Hashable {
    /// "BSI TR-03161-1".
    public let document: String
    public let title: String
    public let version: String
    /// yyyy-MM-dd, as the document dates itself.
    public let date: String
    /// 64 lower case hex digits: what `sha256sum` prints for the PDF.
    public let sha256: String
}

/// The Prüfaspekt a requirement belongs to: its number and name in the document (findings.json
/// writes it key for key).
public struct RequirementAspect: Encodable, Sendable, Hashable {
    public let number: Int
    public let name: String
}

/// How deeply the document asks a requirement to be tested. The raw value is the document's word.
public enum TestDepth: String, Sendable, Hashable, CaseIterable {
    /// Checked against what the manufacturer provides.
    case check = "CHECK"
    /// Examined beyond that, by the assessor's own testing.
    case examine = "EXAMINE"
}

/// What of a session bears on a requirement. Each rule reads the findings of one check only.
public enum RequirementRule: Sendable, Hashable {
    /// Nothing this tool observes bears on it.
    case outsideToolScope
    /// Findings of these kinds contradict it.
    case contraryFindings([FindingKind])
    /// Findings of the first kinds contradict it; those of the second support it.
    case contraryAndSupportingFindings(contrary: [FindingKind], supporting: [FindingKind])

    /// The word the catalogue format uses for the rule.
    public enum Name: String, Sendable, Hashable, CaseIterable {
        /// Reads no findings.
        case outsideToolScope
        /// Takes `contraryKinds` only.
        case contraryFindings
        /// Takes `contraryKinds` and `supportingKinds`.
        case contraryAndSupportingFindings
    }

    public var name: Name {
        switch self {
        case .outsideToolScope: .outsideToolScope
        case .contraryFindings: .contraryFindings
        case .contraryAndSupportingFindings: .contraryAndSupportingFindings
        }
    }

    public var contraryKinds: [FindingKind] {
        switch self {
        case .outsideToolScope: []
        case .contraryFindings(let kinds), .contraryAndSupportingFindings(let kinds, _): kinds
        }
    }

    public var supportingKinds: [FindingKind] {
        if case .contraryAndSupportingFindings(_, let kinds) = self { return kinds }
        return []
    }

    /// Whether any verdict but "not assessed" is possible.
    public var readsFindings: Bool { self != .outsideToolScope }

    /// The one check whose findings the rule reads; nil when it reads none.
    public var check: FindingsCheck? { (contraryKinds + supportingKinds).first?.check }
}

/// One requirement of the document, and what this tool can say about it.
public struct Requirement: Sendable, Hashable, Identifiable {
    /// "O.Ntwk_1", as in the document.
    public let id: String
    public let aspect: RequirementAspect
    /// The document's own short form (Kurzfassung), in its language.
    public let title: String
    public let testDepth: TestDepth
    public let rule: RequirementRule
    /// What the tool looks at for it and what it cannot see; present whenever the rule reads findings.
    public let toolCoverage: String?
}
