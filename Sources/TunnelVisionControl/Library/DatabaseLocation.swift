/// Which history file a command works on: `--db`, else `TUNNELVISION_DB`, else the daemon's.
public struct DatabaseLocation: Sendable, Hashable {
    public static let daemonDefault = "/var/lib/tunnelvision/history.sqlite"
    public static let environmentKey = "TUNNELVISION_DB"

    public let path: String

    public init(path: String) {
        self.path = path
    }

    public init(option: String?, environment: [String: String]) {
        if let option, !option.isEmpty {
            path = option
        } else if let named = environment[Self.environmentKey], !named.isEmpty {
            path = named
        } else {
            path = Self.daemonDefault
        }
    }

    /// The directory SQLite writes the journal beside the database into.
    public var directory: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
