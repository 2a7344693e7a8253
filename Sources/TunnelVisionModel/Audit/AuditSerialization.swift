/// The kinds as they are written: the integers of the `kind` columns and the names every JSON
/// document (tvctl's and the bundle's) gives them. Both are formats: never renumber or rename a case.
public enum AuditSerialization {
    public enum SessionKindCode: Int64, Sendable, CaseIterable, NamedByCase {
        case baseline = 0
        case audit = 1
    }

    public enum MarkerKindCode: Int64, Sendable, CaseIterable, NamedByCase {
        case consentGiven = 0
        case loggedIn = 1
        case loggedOut = 2
        case custom = 3
    }

    public static func code(of kind: RecordingKind) -> SessionKindCode {
        switch kind {
        case .baseline: .baseline
        case .audit: .audit
        }
    }

    /// The marker's code and, for a custom marker, its label.
    public static func code(of kind: SessionMarkerKind) -> (code: MarkerKindCode, label: String?) {
        switch kind {
        case .consentGiven: (.consentGiven, nil)
        case .loggedIn: (.loggedIn, nil)
        case .loggedOut: (.loggedOut, nil)
        case .custom(let label): (.custom, label)
        }
    }

    /// Nil when the stored row is not one this version can read.
    public static func sessionKind(code: Int64, version: String?, build: String?) -> RecordingKind? {
        switch SessionKindCode(rawValue: code) {
        case .baseline: return .baseline
        case .audit:
            guard let version, let build else { return nil }
            return .audit(AppRelease(version: version, build: build))
        case nil: return nil
        }
    }

    /// How a session's gateway resolvers are stored: comma-separated addresses, empty for none.
    public static func text(ofResolvers resolvers: [IPAddress]) -> String {
        resolvers.map(\.description).joined(separator: ",")
    }

    /// Nil when a stored entry is not an address.
    public static func resolvers(text: String) -> [IPAddress]? {
        guard !text.isEmpty else { return [] }
        let addresses = text.split(separator: ",", omittingEmptySubsequences: false).map { IPAddress(String($0)) }
        return addresses.contains(nil) ? nil : addresses.compactMap { $0 }
    }

    public static func markerKind(code: Int64, label: String?) -> SessionMarkerKind? {
        switch MarkerKindCode(rawValue: code) {
        case .consentGiven: return .consentGiven
        case .loggedIn: return .loggedIn
        case .loggedOut: return .loggedOut
        case .custom: return label.map(SessionMarkerKind.custom)
        case nil: return nil
        }
    }
}
