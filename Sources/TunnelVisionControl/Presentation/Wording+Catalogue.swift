import TunnelVisionAudit

/// Why a catalogue file was refused, said so that whoever wrote it can find the place.
extension Wording {
    static func phrase(for error: RequirementCatalogueError) -> String {
        switch error {
        case .malformed(let detail):
            detail.isEmpty
                ? "it is not a JSON object; a catalogue is one object with formatVersion, identifier, source, tls and requirements"
                : "the value at \(detail) has the wrong type; write it as the catalogue format gives it"
        case .identifierNotAName(let identifier):
            "its identifier \(quoted(identifier)) is not a plain name; use letters, digits, '.', '_' and '-' only, as the file name without .json"
        case .unsupportedFormatVersion(let found):
            "its formatVersion is \(found.map(String.init) ?? "missing"), and this tool reads \(RequirementCatalogue.formatVersion)"
        case .emptyField(let key, let location):
            "\(key) is missing or empty in \(phrase(for: location))"
        case .invalidDate(let date, let location):
            "the date \(quoted(date)) in \(phrase(for: location)) is not written yyyy-MM-dd"
        case .invalidDigest(let digest, let location):
            "the sha256 \(quoted(digest)) in \(phrase(for: location)) is not 64 lower case hex digits"
        case .invalidTLSMinimum(let text):
            "tls.minimumVersion is \(text.map(quoted) ?? "missing"), not one of 1.0, 1.1, 1.2, 1.3"
        case .noRequirements:
            "it lists no requirement"
        case .repeatedRequirement(let reference):
            "\(phrase(for: reference)) repeats an id already used"
        case .invalidAspectNumber(let reference):
            "the aspect number of \(phrase(for: reference)) is missing or not positive"
        case .unknownTestDepth(let depth, let reference):
            "the testDepth \(quoted(depth)) of \(phrase(for: reference)) is neither CHECK nor EXAMINE"
        case .unknownRule(let rule, let reference):
            "the rule \(quoted(rule)) of \(phrase(for: reference)) is not one this tool knows"
        case .unknownFindingKind(let kind, let reference):
            "the finding kind \(quoted(kind)) of \(phrase(for: reference)) is not one this tool knows"
        case .missingKinds(let list, let reference):
            "the rule of \(phrase(for: reference)) needs \(list.rawValue)"
        case .unexpectedKinds(let list, let reference):
            "the rule of \(phrase(for: reference)) takes no \(list.rawValue)"
        case .repeatedKind(let kind, let reference):
            "\(phrase(for: reference)) names \(kind.rawValue) twice"
        case .kindsOfSeveralChecks(let checks, let reference):
            "the kinds of \(phrase(for: reference)) belong to several checks (\(checks.map(\.rawValue).joined(separator: ", "))), and a rule reads one"
        case .missingToolCoverage(let reference):
            "\(phrase(for: reference)) reads findings but has no toolCoverage saying what the tool looks at"
        }
    }

    static func phrase(for reason: CatalogueUnusableReason) -> String {
        switch reason {
        case .unreadable(let path): "\(path) cannot be read"
        case .refused(let error): phrase(for: error)
        case .identifierMismatch(let found): "the file calls itself \(quoted(found))"
        }
    }

    private static func phrase(for location: CatalogueLocation) -> String {
        switch location {
        case .catalogue: "the catalogue"
        case .source: "source"
        case .tlsSource: "tls.source"
        case .requirement(let reference): phrase(for: reference)
        }
    }

    private static func phrase(for reference: RequirementReference) -> String {
        "requirement \(reference.position)" + (reference.id.map { " (\($0))" } ?? "")
    }

    static func catalogueUsable(path: String, catalogue: RequirementCatalogue, fileIdentifier: String) -> String {
        var text = "\(path) is a usable catalogue: \(catalogue.identifier), \(plural(catalogue.requirements.count, "requirement")) "
            + "of \(catalogue.source.document) \(catalogue.source.version), TLS minimum \(catalogue.policy.minimumTLSVersion.displayText)."
        if fileIdentifier != catalogue.identifier {
            text += " Install it as \(catalogue.identifier).json: a catalogue is found by its file name."
        }
        return text
    }
}
