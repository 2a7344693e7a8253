import CLibPQ
import Foundation

/// `/etc/tunnelvision/archive.conf`: the connection string, this gateway's name in the archive,
/// whether a recording's kept TLS key logs may leave the gateway, and whether tvctl's reading
/// commands read the archive rather than this gateway's history. Lines `key = value`;
/// `#` starts a comment. It holds a credential: readable by its owner alone.
public struct ArchiveConfiguration: Sendable, Equatable {
    public static let defaultPath = "/etc/tunnelvision/archive.conf"
    public static let environmentKey = "TUNNELVISION_ARCHIVE_CONF"

    public let connection: String
    public let gateway: String
    public let publishKeyLogs: Bool
    /// `reading = archive`: `tvctl recordings|findings|diff|export` read the archive unless
    /// `--local` is given (default `gateway`: they read this gateway's history).
    public let readsArchive: Bool

    public init(connection: String, gateway: String, publishKeyLogs: Bool = false, readsArchive: Bool = false) {
        self.connection = connection
        self.gateway = gateway
        self.publishKeyLogs = publishKeyLogs
        self.readsArchive = readsArchive
    }

    /// Whether the file at `path` makes the archive the default of the reading commands. A file
    /// this user may not read, or one the archive's commands would refuse, names no default: the
    /// reading commands then read this gateway's history, as they do without an archive.
    public static func readsArchiveByDefault(path: String) -> Bool {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let settings = try? parse(text, path: path) else { return false }
        return settings.readsArchive
    }

    /// Reads the file, refusing one that others may read and a remote server without verified TLS.
    public static func read(path: String) throws(ArchiveError) -> ArchiveConfiguration {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            throw .configuration(errno == ENOENT ? "\(path) does not exist" : "\(path): \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & 0o077 == 0 else {
            throw .configuration("\(path) is readable by others; it holds the archive's password: chmod 600 \(path)")
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw .configuration("\(path) cannot be read: run this as its owner (root)")
        }
        return try parse(text, path: path)
    }

    public static func parse(_ text: String, path: String) throws(ArchiveError) -> ArchiveConfiguration {
        var values: [String: String] = [:]
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw .configuration("\(path) line \(index + 1) is not 'key = value'")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            guard ["connection", "gateway", "publish_key_logs", "reading"].contains(key) else {
                throw .configuration("\(path) line \(index + 1): unknown key '\(key)' (connection, gateway, publish_key_logs, reading)")
            }
            values[key] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        guard let connection = values["connection"], !connection.isEmpty else { throw .configuration("\(path) has no 'connection = …'") }
        guard let gateway = values["gateway"], !gateway.isEmpty, !gateway.contains(":") else {
            throw .configuration("\(path) needs 'gateway = NAME' (a name without ':', unique in the lab)")
        }
        let keyLogs = values["publish_key_logs"] ?? "no"
        guard keyLogs == "yes" || keyLogs == "no" else { throw .configuration("\(path): publish_key_logs is yes or no") }
        let reading = values["reading"] ?? "gateway"
        guard reading == "archive" || reading == "gateway" else { throw .configuration("\(path): reading is archive or gateway") }
        try requireVerifiedTLS(connection, path: path)
        return ArchiveConfiguration(
            connection: connection, gateway: gateway, publishKeyLogs: keyLogs == "yes", readsArchive: reading == "archive")
    }

    /// A server on another host is reached only over TLS that checks its name against the lab's
    /// CA: the rows are a health app's traffic.
    static func requireVerifiedTLS(_ connection: String, path: String) throws(ArchiveError) {
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(connection, &message) else {
            let detail = message.map { String(cString: $0) } ?? "not a connection string"
            PQfreemem(message)
            throw .configuration("\(path): connection: \(detail.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        let hosts = (values["host"] ?? "").split(separator: ",").map(String.init) + (values["hostaddr"] ?? "").split(separator: ",").map(String.init)
        let local = hosts.allSatisfy { $0.hasPrefix("/") || $0 == "localhost" || $0 == "127.0.0.1" || $0 == "::1" }
        guard local || values["sslmode"] == "verify-full" else {
            throw .configuration("\(path): a server on another host needs sslmode=verify-full and sslrootcert= the lab's CA")
        }
    }
}
