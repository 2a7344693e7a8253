/// A requirement named by where it stands in the catalogue, and by its id when it has one.
public struct RequirementReference: Sendable, Hashable {
    /// 1 for the first requirement.
    public let position: Int
    /// Nil when the requirement has no id.
    public let id: String?

    public init(position: Int, id: String?) {
        self.position = position
        self.id = id
    }
}

/// Where in a catalogue a field stands.
public enum CatalogueLocation: Sendable, Hashable {
    /// The top level: `formatVersion`, `identifier`, `requirements`.
    case catalogue
    /// The requirements document: `source`.
    case source
    /// The document the TLS minimum comes from: `tls.source`.
    case tlsSource
    /// One requirement.
    case requirement(RequirementReference)
}

/// The two lists of finding kinds a rule can carry, by their key in the format.
public enum RuleKindList: String, Sendable, Hashable, CaseIterable {
    case contraryKinds, supportingKinds
}

/// Why a catalogue is refused when it is loaded. Each case names where the fault is, so that
/// whoever wrote the file can correct that place.
public enum RequirementCatalogueError: Error, Sendable, Hashable {
    /// A value of the wrong type at the JSON path given; an empty path: not a JSON object.
    case malformed(detail: String)
    /// An identifier that is not a plain name (letters, digits, '.', '_', '-'; first a letter or
    /// a digit; at most 64): it names a file in the catalogue directory and must never be a path.
    case identifierNotAName(String)
    /// Another `formatVersion` than this tool reads (nil: none given).
    case unsupportedFormatVersion(found: Int?)
    /// A text field that is missing or empty.
    case emptyField(key: String, in: CatalogueLocation)
    /// A date that is not a calendar date written yyyy-MM-dd.
    case invalidDate(String, in: CatalogueLocation)
    /// A digest that is not 64 lower case hex digits.
    case invalidDigest(String, in: CatalogueLocation)
    /// `tls.minimumVersion` is not one of "1.0", "1.1", "1.2", "1.3" (nil: none given).
    case invalidTLSMinimum(String?)
    /// The catalogue lists no requirement.
    case noRequirements
    /// A requirement id already used by an earlier requirement.
    case repeatedRequirement(RequirementReference)
    /// The aspect number is missing or not positive.
    case invalidAspectNumber(in: RequirementReference)
    /// A test depth other than CHECK or EXAMINE.
    case unknownTestDepth(String, in: RequirementReference)
    /// A rule this tool does not know.
    case unknownRule(String, in: RequirementReference)
    /// A finding kind this tool does not know.
    case unknownFindingKind(String, in: RequirementReference)
    /// The rule needs this list of kinds and it is missing or empty.
    case missingKinds(RuleKindList, in: RequirementReference)
    /// The rule takes no such list, yet it is given.
    case unexpectedKinds(RuleKindList, in: RequirementReference)
    /// A kind given twice in the rule's lists.
    case repeatedKind(FindingKind, in: RequirementReference)
    /// The rule's kinds belong to several checks; a rule reads one.
    case kindsOfSeveralChecks([FindingsCheck], in: RequirementReference)
    /// The rule reads findings but says nothing of what the tool looks at.
    case missingToolCoverage(in: RequirementReference)
}
