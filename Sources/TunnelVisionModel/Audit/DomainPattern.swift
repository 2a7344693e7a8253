/// An allowlist pattern: an exact name or `*.suffix`. Normalised and validated on construction.
///
/// `*.example.com` covers every name below `example.com`, at any depth, and never the apex
/// itself; comparison is label by label, so `notexample.com` is outside it. Patterns are ASCII
/// only: an internationalised name is written as its punycode (`xn--`) form.
public struct DomainPattern: Sendable, Hashable {
    public enum Scope: Sendable, Hashable { case exact, subdomains }

    public enum ParseError: Error, Sendable, Equatable {
        case empty, misplacedWildcard, nonASCII, emptyLabel
        case labelTooLong(String), nameTooLong, invalidCharacter(Character)
    }

    public let scope: Scope
    /// Normalised, without the `*.` prefix.
    public let name: String

    static let maximumNameLength = 253
    static let maximumLabelLength = 63

    public init(parsing text: String) throws(ParseError) {
        var body = text.trimmingASCIIWhitespace()
        guard !body.isEmpty else { throw .empty }
        guard body.unicodeScalars.allSatisfy(\.isASCII) else { throw .nonASCII }
        body = body.lowercased()
        var scope = Scope.exact
        if body.hasPrefix("*.") {
            scope = .subdomains
            body.removeFirst(2)
        }
        guard !body.contains("*") else { throw .misplacedWildcard }
        // A fully qualified name's trailing dot names the same host.
        if body.hasSuffix(".") { body.removeLast() }
        guard !body.isEmpty else { throw scope == .subdomains ? .emptyLabel : .empty }
        guard body.utf8.count <= Self.maximumNameLength else { throw .nameTooLong }
        for label in body.split(separator: ".", omittingEmptySubsequences: false) {
            guard !label.isEmpty else { throw .emptyLabel }
            guard label.utf8.count <= Self.maximumLabelLength else { throw .labelTooLong(String(label)) }
            if let bad = label.first(where: { !Self.isLabelCharacter($0) }) {
                throw .invalidCharacter(bad)
            }
        }
        self.scope = scope
        self.name = body
    }

    /// Canonical form: what is stored and shown.
    public var text: String {
        switch scope {
        case .exact: name
        case .subdomains: "*." + name
        }
    }

    public func matches(_ host: String) -> Bool {
        let candidate = Self.normalised(host: host)
        switch scope {
        case .exact:
            return candidate == name
        case .subdomains:
            // Label-wise: the host must end in "." + name, so the apex and look-alikes are out.
            return candidate.count > name.count && candidate.hasSuffix("." + name)
        }
    }

    /// The text a host is compared and cited by: lower case, no surrounding space, no trailing dot.
    public static func normalised(host: String) -> String {
        var text = host.trimmingASCIIWhitespace().lowercased()
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    private static func isLabelCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        switch ascii {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}

extension DomainPattern: CustomStringConvertible {
    public var description: String { text }
}

extension String {
    func trimmingASCIIWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }),
              let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[start...end])
    }
}
