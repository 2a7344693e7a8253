import Foundation

/// The catalogue file as written, every field optional, so that what is missing is refused by
/// a rule that names it rather than by the decoder. Unknown keys are ignored.
struct CatalogueDocument: Decodable {
    struct Source: Decodable {
        var document, title, version, date, sha256: String?
    }

    struct TLS: Decodable {
        var minimumVersion: String?
        var source: Source?
    }

    struct Aspect: Decodable {
        var number: Int?
        var name: String?
    }

    struct Entry: Decodable {
        var id: String?
        var aspect: Aspect?
        var title: String?
        var testDepth: String?
        var rule: String?
        var contraryKinds: [String]?
        var supportingKinds: [String]?
        var toolCoverage: String?
    }

    var formatVersion: Int?
    var identifier: String?
    var source: Source?
    var tls: TLS?
    var requirements: [Entry]?

    /// Where a value of the wrong type stands, as a JSON path a person can find in the file
    /// ("requirements[2].title", positions from 0 as in JSON); nil when the text is not an object.
    private static func path(of error: any Error) -> String? {
        let context: DecodingError.Context
        switch error as? DecodingError {
        case .typeMismatch(_, let found)?, .valueNotFound(_, let found)?: context = found
        default: return nil
        }
        guard !context.codingPath.isEmpty else { return nil }
        return context.codingPath.reduce(into: "") { path, key in
            if let index = key.intValue { path += "[\(index)]" } else { path += (path.isEmpty ? "" : ".") + key.stringValue }
        }
    }

    /// Refused with the place of the first value of the wrong type, or with an empty detail
    /// when the text is not a JSON object at all.
    static func decode(_ data: Data) throws(RequirementCatalogueError) -> CatalogueDocument {
        do {
            return try JSONDecoder().decode(CatalogueDocument.self, from: data)
        } catch {
            throw .malformed(detail: path(of: error) ?? "")
        }
    }
}

/// The checks a catalogue's text fields go through, one place for each.
enum CatalogueField {
    /// The text, trimmed; refused when missing or blank.
    static func text(_ value: String?, key: String, in location: CatalogueLocation) throws(RequirementCatalogueError) -> String {
        let text = value?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !text.isEmpty else { throw .emptyField(key: key, in: location) }
        return text
    }

    static func source(_ source: CatalogueDocument.Source?, in location: CatalogueLocation) throws(RequirementCatalogueError) -> CatalogueSource {
        let document = try text(source?.document, key: "document", in: location)
        let title = try text(source?.title, key: "title", in: location)
        let version = try text(source?.version, key: "version", in: location)
        let date = try text(source?.date, key: "date", in: location)
        guard isCalendarDate(date) else { throw .invalidDate(date, in: location) }
        let digest = try text(source?.sha256, key: "sha256", in: location)
        guard digest.utf8.count == 64, digest.utf8.allSatisfy(isLowerHexDigit) else { throw .invalidDigest(digest, in: location) }
        return CatalogueSource(document: document, title: title, version: version, date: date, sha256: digest)
    }

    /// yyyy-MM-dd naming a day that exists.
    static func isCalendarDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), day >= 1 else { return false }
        let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let daysInMonth = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return day <= daysInMonth[month - 1]
    }

    private static func isLowerHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}

extension RequirementRule {
    /// The rule a requirement names, with kinds that fit it: each list present exactly when the
    /// rule takes it, no kind twice, and all of one check.
    init(
        name: String?, contrary: [String]?, supporting: [String]?, in reference: RequirementReference
    ) throws(RequirementCatalogueError) {
        let location = CatalogueLocation.requirement(reference)
        let written = try CatalogueField.text(name, key: "rule", in: location)
        guard let ruleName = Name(rawValue: written) else { throw .unknownRule(written, in: reference) }
        let takesContrary = ruleName != .outsideToolScope
        let takesSupporting = ruleName == .contraryAndSupportingFindings
        let contraryKinds = try Self.kinds(contrary, list: .contraryKinds, taken: takesContrary, in: reference)
        let supportingKinds = try Self.kinds(supporting, list: .supportingKinds, taken: takesSupporting, in: reference)

        var seen: Set<FindingKind> = []
        for kind in contraryKinds + supportingKinds where !seen.insert(kind).inserted {
            throw .repeatedKind(kind, in: reference)
        }
        var checks: [FindingsCheck] = []
        for check in (contraryKinds + supportingKinds).map(\.check) where !checks.contains(check) {
            checks.append(check)
        }
        guard checks.count <= 1 else { throw .kindsOfSeveralChecks(checks, in: reference) }

        switch ruleName {
        case .outsideToolScope: self = .outsideToolScope
        case .contraryFindings: self = .contraryFindings(contraryKinds)
        case .contraryAndSupportingFindings:
            self = .contraryAndSupportingFindings(contrary: contraryKinds, supporting: supportingKinds)
        }
    }

    private static func kinds(
        _ written: [String]?, list: RuleKindList, taken: Bool, in reference: RequirementReference
    ) throws(RequirementCatalogueError) -> [FindingKind] {
        let names = written ?? []
        guard taken else {
            if !names.isEmpty { throw .unexpectedKinds(list, in: reference) }
            return []
        }
        guard !names.isEmpty else { throw .missingKinds(list, in: reference) }
        var kinds: [FindingKind] = []
        for name in names {
            guard let kind = FindingKind(rawValue: name) else { throw .unknownFindingKind(name, in: reference) }
            kinds.append(kind)
        }
        return kinds
    }
}

extension Requirement {
    init(_ entry: CatalogueDocument.Entry, position: Int) throws(RequirementCatalogueError) {
        let writtenID = entry.id?.trimmingCharacters(in: .whitespacesAndNewlines)
        let reference = RequirementReference(position: position, id: (writtenID?.isEmpty ?? true) ? nil : writtenID)
        let location = CatalogueLocation.requirement(reference)
        id = try CatalogueField.text(entry.id, key: "id", in: location)
        guard let number = entry.aspect?.number, number > 0 else { throw .invalidAspectNumber(in: reference) }
        aspect = RequirementAspect(number: number, name: try CatalogueField.text(entry.aspect?.name, key: "aspect.name", in: location))
        title = try CatalogueField.text(entry.title, key: "title", in: location)
        let depth = try CatalogueField.text(entry.testDepth, key: "testDepth", in: location)
        guard let testDepth = TestDepth(rawValue: depth) else { throw .unknownTestDepth(depth, in: reference) }
        self.testDepth = testDepth
        rule = try RequirementRule(
            name: entry.rule, contrary: entry.contraryKinds, supporting: entry.supportingKinds, in: reference)
        let coverage = entry.toolCoverage?.trimmingCharacters(in: .whitespacesAndNewlines)
        toolCoverage = (coverage?.isEmpty ?? true) ? nil : coverage
        if rule.readsFindings && toolCoverage == nil { throw .missingToolCoverage(in: reference) }
    }
}
