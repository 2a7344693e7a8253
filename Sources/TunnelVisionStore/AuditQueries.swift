import Foundation
import TunnelVisionModel

/// The audit model's reads, shared by the store's writes (inside their transaction) and by
/// `HistorySnapshot`.
enum AuditQueries {
    static let sessionColumns = """
        id, project_id, kind, app_version, build_number, device_model, os_version, tool_version,
        inspection_enabled, ca_trusted, started_at, ended_at, notes, ca_fingerprint, quic_dropped, inspection_mode,
        validation_ca_fingerprint, gateway_resolvers, phone_name, phone_ipv4, phone_ipv6, phone_public_key, phone_key_fingerprint,
        keep_keys, upstream_mirror, ca_store, keep_request_paths
        """

    static func project(id: Int64, db: SQLiteConnection) throws -> AuditProject? {
        try db.statement("SELECT id, name, bundle_id, catalogue_version, created_at FROM audit_projects WHERE id = ?")
            .bind(.integer(id))
            .firstRow(readProject)
            .map { try complete($0, db: db) }
    }

    static func projects(db: SQLiteConnection) throws -> [AuditProject] {
        let rows = try db.statement(
            "SELECT id, name, bundle_id, catalogue_version, created_at FROM audit_projects ORDER BY created_at DESC, id DESC"
        ).rows(readProject)
        return try rows.map { try complete($0, db: db) }
    }

    static func projectExists(_ id: Int64, db: SQLiteConnection) throws -> Bool {
        try db.statement("SELECT 1 FROM audit_projects WHERE id = ?").bind(.integer(id)).firstRow { _ in true } ?? false
    }

    static func session(id: Int64, db: SQLiteConnection) throws -> Recording? {
        try db.statement("SELECT \(sessionColumns) FROM audit_sessions WHERE id = ?").bind(.integer(id)).firstRow(readSession)
    }

    static func sessions(forProject projectID: Int64, db: SQLiteConnection) throws -> [Recording] {
        try db.statement("SELECT \(sessionColumns) FROM audit_sessions WHERE project_id = ? ORDER BY started_at DESC, id DESC")
            .bind(.integer(projectID))
            .rows(readSession)
    }

    /// Every open session, oldest first: one per phone, or one of the whole tap.
    static func openSessions(db: SQLiteConnection) throws -> [Recording] {
        try db.statement("SELECT \(sessionColumns) FROM audit_sessions WHERE ended_at IS NULL ORDER BY started_at, id")
            .rows(readSession)
            .compactMap { $0 }
    }

    /// The only open session; nil when none is, or when several are (ask `openSessions`).
    static func openSession(db: SQLiteConnection) throws -> Recording? {
        let open = try openSessions(db: db)
        return open.count == 1 ? open[0] : nil
    }

    static func openSession(phone: String, db: SQLiteConnection) throws -> Recording? {
        try db.statement("SELECT \(sessionColumns) FROM audit_sessions WHERE ended_at IS NULL AND phone_name = ?")
            .bind(.text(phone))
            .firstRow(readSession) ?? nil
    }

    /// Which open recording a flow of the phone end CLIENT (an SQL expression) belongs to: its
    /// phone's, or a recording of the whole tap. Tagging and the relay both read it.
    static func openRecordingCondition(client: String) -> String {
        "ended_at IS NULL AND (phone_name IS NULL OR phone_ipv4 = \(client) OR phone_ipv6 = \(client))"
    }

    static func openSession(client: IPAddress, db: SQLiteConnection) throws -> Recording? {
        try db.statement(
            "SELECT \(sessionColumns) FROM audit_sessions WHERE \(openRecordingCondition(client: "?1")) ORDER BY id LIMIT 1")
            .bind(.text(client.description))
            .firstRow(readSession) ?? nil
    }

    static func recordings(db: SQLiteConnection) throws -> [RecordingWithProject] {
        try openSessions(db: db).compactMap { try recording(of: $0, db: db) }
    }

    static func recording(db: SQLiteConnection) throws -> RecordingWithProject? {
        try openSession(db: db).flatMap { try recording(of: $0, db: db) }
    }

    static func recording(of session: Recording, db: SQLiteConnection) throws -> RecordingWithProject? {
        let name = try db.statement("SELECT name FROM audit_projects WHERE id = ?")
            .bind(.integer(session.projectID))
            .firstRow { $0.text(0) }
        return name.map { RecordingWithProject(session: session, projectName: $0) }
    }

    static func markers(forSession id: Int64, db: SQLiteConnection) throws -> [SessionMarker] {
        try db.statement("SELECT id, session_id, ts, kind, label FROM audit_markers WHERE session_id = ? ORDER BY ts, id")
            .bind(.integer(id))
            .rows { row in
                guard let kind = AuditSerialization.markerKind(code: row.int64(3), label: row.textOrNil(4)) else {
                    throw HistoryError.unreadableRow(table: "audit_markers", id: row.int64(0), reason: "unknown kind \(row.int64(3))")
                }
                return SessionMarker(id: row.int64(0), sessionID: row.int64(1), date: row.instant(2), kind: kind)
            }
    }

    // MARK: - Rows

    private struct ProjectRow {
        let id: Int64, name: String, bundleID: String?, catalogue: String?, createdAt: Date
    }

    private static func readProject(_ row: Row) -> ProjectRow {
        ProjectRow(id: row.int64(0), name: row.text(1), bundleID: row.textOrNil(2), catalogue: row.textOrNil(3), createdAt: row.date(4))
    }

    private static func complete(_ row: ProjectRow, db: SQLiteConnection) throws -> AuditProject {
        let allowlist = try db.statement("SELECT pattern, note, id FROM audit_allowlist WHERE project_id = ? ORDER BY position")
            .bind(.integer(row.id))
            .rows { entry in
                // A pattern that no longer parses is neither guessed at nor left out: the list would lie.
                let text = entry.text(0)
                guard let pattern = try? DomainPattern(parsing: text) else {
                    throw HistoryError.unreadableRow(
                        table: "audit_allowlist", id: entry.int64(2), reason: "the pattern \"\(text)\" no longer parses")
                }
                return AllowlistEntry(pattern: pattern, note: entry.textOrNil(1))
            }
        return AuditProject(
            id: row.id, name: row.name, bundleIdentifier: row.bundleID, catalogueVersion: row.catalogue,
            allowlist: allowlist, createdAt: row.createdAt)
    }

    /// A row this version cannot read (an unknown kind) is an error naming it, never left out.
    private static func readSession(_ row: Row) throws -> Recording {
        guard let kind = AuditSerialization.sessionKind(code: row.int64(2), version: row.textOrNil(3), build: row.textOrNil(4)) else {
            throw HistoryError.unreadableRow(table: "audit_sessions", id: row.int64(0), reason: "unknown kind \(row.int64(2))")
        }
        guard let resolvers = AuditSerialization.resolvers(text: row.text(17)) else {
            throw HistoryError.unreadableRow(
                table: "audit_sessions", id: row.int64(0), reason: "gateway resolvers \"\(row.text(17))\" are not addresses")
        }
        let mode: InspectionMode
        if let code = row.int64OrNil(15) {
            guard let stored = AuditSerialization.inspectionMode(code: code) else {
                throw HistoryError.unreadableRow(table: "audit_sessions", id: row.int64(0), reason: "unknown inspection mode \(code)")
            }
            mode = stored
        } else {
            mode = row.bool(8) ? .pinning : .off
        }
        let store = try row.textOrNil(25).map { text in
            guard let store = CATrustStore(rawValue: text) else {
                throw HistoryError.unreadableRow(table: "audit_sessions", id: row.int64(0), reason: "unknown CA store \"\(text)\"")
            }
            return store
        }
        return Recording(
            id: row.int64(0), projectID: row.int64(1), kind: kind,
            environment: AuditEnvironment(deviceModel: row.text(5), osVersion: row.text(6), toolVersion: row.text(7)),
            inspection: InspectionConditions(
                mode: mode, caTrusted: row.bool(9), caFingerprint: row.textOrNil(13), quicDropped: row.bool(14),
                keepsKeys: row.bool(23), upstreamMirror: row.isNull(24) ? nil : row.bool(24), caStore: store,
                keepsRequestPaths: row.bool(26)),
            gatewayResolvers: resolvers,
            startedAt: row.instant(10), endedAt: row.instantOrNil(11), notes: row.text(12),
            validationIssuerFingerprint: row.textOrNil(16), phone: readSessionPhone(row))
    }

    /// The phone a session copied at its start; nil for a session of the whole tap.
    private static func readSessionPhone(_ row: Row) -> Phone? {
        guard let name = row.textOrNil(18), let ipv4 = row.textOrNil(19).flatMap(IPAddress.init),
              let ipv6 = row.textOrNil(20).flatMap(IPAddress.init) else { return nil }
        return Phone(name: name, ipv4: ipv4, ipv6: ipv6, publicKey: row.textOrNil(21) ?? "",
                     keyFingerprint: row.textOrNil(22) ?? "")
    }
}

extension HistorySnapshot {
    public func auditProjects() throws -> [AuditProject] { try AuditQueries.projects(db: db) }
    public func auditProject(id: Int64) throws -> AuditProject? { try AuditQueries.project(id: id, db: db) }
    public func openRecording() throws -> Recording? { try AuditQueries.openSession(db: db) }
    public func openRecordings() throws -> [Recording] { try AuditQueries.openSessions(db: db) }
    public func openRecording(phone: String) throws -> Recording? { try AuditQueries.openSession(phone: phone, db: db) }
    public func openRecording(client: IPAddress) throws -> Recording? { try AuditQueries.openSession(client: client, db: db) }
    public func auditRecordings() throws -> [RecordingWithProject] { try AuditQueries.recordings(db: db) }
    public func recording(id: Int64) throws -> Recording? { try AuditQueries.session(id: id, db: db) }
    public func recordings(forProject projectID: Int64) throws -> [Recording] {
        try AuditQueries.sessions(forProject: projectID, db: db)
    }
    public func auditRecording() throws -> RecordingWithProject? { try AuditQueries.recording(db: db) }
    public func markers(forSession id: Int64) throws -> [SessionMarker] { try AuditQueries.markers(forSession: id, db: db) }
}
