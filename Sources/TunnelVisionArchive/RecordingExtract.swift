import Foundation

/// Everything of one ended recording the archive holds, read from the gateway's history in one
/// read transaction: the recording with its conditions and phone, its project and allowlist,
/// its markers, its flows and the relay's facts of them.
public struct RecordingExtract: Sendable {
    public let recording: HistoryRow
    public let project: HistoryRow
    public let allowlist: [HistoryRow]
    public let markers: [HistoryRow]
    public let flows: [HistoryRow]
    public let relays: [HistoryRow]
    /// The requests the relay read inside its flows (none from a history older than requests).
    public var requests: [HistoryRow] = []
    /// The history's schema version the rows were written under.
    public let historySchema: Int

    public var localID: Int64 { recording.integer("id") ?? 0 }
    public var projectName: String { project.text("name") ?? "" }
}

/// The gateway's history, read without the store: whole rows, whatever this version's store
/// makes of them, opened read-only so that publishing never writes where the daemon records.
public struct GatewayHistory: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// The ended recordings, oldest first: the order they are published in.
    public func endedRecordingIDs() throws(ArchiveError) -> [Int64] {
        let connection = try HistoryRowConnection(path: path, readOnly: true)
        return try connection.rows("SELECT id FROM audit_sessions WHERE ended_at IS NOT NULL ORDER BY id").compactMap { $0.integer("id") }
    }

    /// One recording's rows. The relay's TLS key logs stay behind unless the recording kept its
    /// keys and the administrator chose to publish them (`publishKeyLogs`).
    public func extract(recordingID id: Int64, publishKeyLogs: Bool) throws(ArchiveError) -> RecordingExtract {
        let connection = try HistoryRowConnection(path: path, readOnly: true)
        try connection.execute("BEGIN")
        defer { try? connection.execute("COMMIT") }
        guard let recording = try connection.rows("SELECT * FROM audit_sessions WHERE id = ?1 AND ended_at IS NOT NULL", [id]).first,
              let projectID = recording.integer("project_id"),
              let project = try connection.rows("SELECT * FROM audit_projects WHERE id = ?1", [projectID]).first
        else { throw .recordingNotFound(String(id)) }
        let keepsKeys = recording.integer("keep_keys") == 1 && publishKeyLogs
        var relays = try connection.rows(
            "SELECT r.* FROM flow_relay r JOIN flows f ON f.id = r.flow_id WHERE f.audit_session_id = ?1 ORDER BY r.flow_id", [id])
        if !keepsKeys {
            relays = relays.map { row in
                var row = row
                row.columns = row.columns.map { $0.name == "key_log" ? ($0.name, .text("")) : $0 }
                return row
            }
        }
        let version = try connection.rows("PRAGMA user_version").first?.columns.first?.value
        guard case .integer(let schema) = version else { throw .history("no schema version") }
        let holdsRequests = try !connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'flow_request'").isEmpty
        let requests = holdsRequests
            ? try connection.rows(
                "SELECT q.* FROM flow_request q JOIN flows f ON f.id = q.flow_id WHERE f.audit_session_id = ?1 ORDER BY q.flow_id, q.position", [id])
            : []
        return RecordingExtract(
            recording: recording, project: project,
            allowlist: try connection.rows("SELECT * FROM audit_allowlist WHERE project_id = ?1 ORDER BY position", [projectID]),
            markers: try connection.rows("SELECT * FROM audit_markers WHERE session_id = ?1 ORDER BY id", [id]),
            flows: try connection.rows("SELECT * FROM flows WHERE audit_session_id = ?1 ORDER BY id", [id]),
            relays: relays, requests: requests, historySchema: Int(schema))
    }
}

/// A recording's evidence bundle as the gateway exported it for the archive.
public struct PublishedBundle: Sendable, Hashable {
    public let fileName: String
    /// The SHA-256 of its manifest.json, lower-case hex: kept in the archive whatever holds the bytes.
    public let manifestSHA256: String
    public let bytes: Data

    /// The exported file, read whole; nil when it cannot be read.
    public init?(file path: String, manifestSHA256: String) {
        guard let bytes = FileManager.default.contents(atPath: path) else { return nil }
        self.init(fileName: URL(fileURLWithPath: path).lastPathComponent, manifestSHA256: manifestSHA256, bytes: bytes)
    }

    init(fileName: String, manifestSHA256: String, bytes: Data) {
        (self.fileName, self.manifestSHA256, self.bytes) = (fileName, manifestSHA256, bytes)
    }
}
