import Foundation
import TunnelVisionModel

/// Projects, sessions and markers: the audit half of the store.
extension History {
    public func createAuditProject(_ draft: AuditProjectDraft, at date: Date) throws -> AuditProject {
        try writeProject(draft, "INSERT INTO audit_projects (name, bundle_id, catalogue_version, created_at) VALUES (?, ?, ?, ?)", .date(date)) { db in
            db.lastInsertedRowID
        }
    }

    public func auditProjects() throws -> [AuditProject] {
        try reading { try $0.auditProjects() }
    }

    public func auditProject(id: Int64) throws -> AuditProject? {
        try reading { try $0.auditProject(id: id) }
    }

    /// Replaces the whole allowlist, in the draft's order; the creation rules apply.
    public func updateAuditProject(id: Int64, with draft: AuditProjectDraft) throws -> AuditProject {
        try writeProject(draft, "UPDATE audit_projects SET name = ?, bundle_id = ?, catalogue_version = ? WHERE id = ?", .integer(id)) { db in
            guard db.changes == 1 else { throw AuditStoreError.projectNotFound(id) }
            try db.statement("DELETE FROM audit_allowlist WHERE project_id = ?").bind(.integer(id)).run()
            return id
        }
    }

    /// Creating and editing alike: the draft's name and allowlist checked, its columns written by
    /// the statement (name, bundle id, catalogue, then `last`), the project's row found by
    /// `row`, its allowlist written, and the project read back, all in one transaction.
    private func writeProject(
        _ draft: AuditProjectDraft, _ sql: String, _ last: SQLValue, row: (SQLiteConnection) throws -> Int64
    ) throws -> AuditProject {
        let name = try Self.validName(draft.name)
        try Self.checkAllowlist(draft.allowlist)
        return try write { db in
            try db.statement(sql).bind(.text(name), .optionalText(draft.bundleIdentifier), .optionalText(draft.catalogueVersion), last).run()
            let id = try row(db)
            try Self.insertAllowlist(draft.allowlist, project: id, db: db)
            return try AuditQueries.project(id: id, db: db)!
        }
    }

    /// Its sessions go with it: their markers are deleted and their flows untagged.
    public func deleteAuditProject(id: Int64) throws {
        try write { db in
            try db.statement("DELETE FROM audit_projects WHERE id = ?").bind(.integer(id)).run()
            guard db.changes == 1 else { throw AuditStoreError.projectNotFound(id) }
        }
    }

    public func startRecording(_ draft: RecordingDraft, at date: Date) throws -> Recording {
        try write { db in
            guard try AuditQueries.projectExists(draft.projectID, db: db) else {
                throw AuditStoreError.projectNotFound(draft.projectID)
            }
            if let open = try Self.sessionInTheWay(of: draft.phone, db: db) { throw AuditStoreError.sessionAlreadyOpen(open) }
            let release = draft.kind.release
            let phone = draft.phone
            try db.statement("""
                INSERT INTO audit_sessions (project_id, kind, app_version, build_number, device_model, os_version,
                    tool_version, inspection_enabled, ca_trusted, started_at, ended_at, notes, ca_fingerprint, quic_dropped,
                    inspection_mode, gateway_resolvers, phone_name, phone_ipv4, phone_ipv6, phone_public_key, phone_key_fingerprint,
                    keep_keys, upstream_mirror, ca_store, keep_request_paths)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
                .bind(
                    .integer(draft.projectID), .integer(AuditSerialization.code(of: draft.kind).rawValue),
                    .optionalText(release?.version), .optionalText(release?.build),
                    .text(draft.environment.deviceModel), .text(draft.environment.osVersion),
                    .text(draft.environment.toolVersion), .bool(draft.inspection.inspectionEnabled),
                    .bool(draft.inspection.caTrusted), .date(date), .text(draft.notes),
                    .optionalText(draft.inspection.caFingerprint), .bool(draft.inspection.quicDropped),
                    .integer(AuditSerialization.code(of: draft.inspection.mode).rawValue),
                    .text(AuditSerialization.text(ofResolvers: draft.gatewayResolvers)),
                    .optionalText(phone?.name), .optionalText(phone?.ipv4.description), .optionalText(phone?.ipv6.description),
                    .optionalText(phone?.publicKey), .optionalText(phone?.keyFingerprint), .bool(draft.inspection.keepsKeys),
                    draft.inspection.upstreamMirror.map(SQLValue.bool) ?? .null, .optionalText(draft.inspection.caStore?.rawValue),
                    .bool(draft.inspection.keepsRequestPaths))
                .run()
            return try AuditQueries.session(id: db.lastInsertedRowID, db: db)!
        }
    }

    /// A phone's recording waits for that phone's to end; a recording of the whole tap waits for
    /// every other, and every other waits for it. (The unique index holds the per-phone rule
    /// against a racing process; this transaction's write lock holds the rest.)
    private static func sessionInTheWay(of phone: Phone?, db: SQLiteConnection) throws -> Int64? {
        let open = try AuditQueries.openSessions(db: db)
        guard let phone else { return open.first?.id }
        return open.first { $0.phone == nil || $0.phone?.name == phone.name }?.id
    }

    /// The fingerprint of the CA the relay made for this recording alone: the first one stays,
    /// so that the session names the issuer its connections were shown.
    public func recordValidationIssuer(sessionID: Int64, fingerprint: String) throws {
        try write { db in
            try db.statement("""
                UPDATE audit_sessions SET validation_ca_fingerprint = COALESCE(validation_ca_fingerprint, ?) WHERE id = ?
                """)
                .bind(.text(fingerprint), .integer(sessionID))
                .run()
        }
    }

    public func endRecording(id: Int64, at date: Date) throws -> Recording {
        try write { db in
            guard let session = try AuditQueries.session(id: id, db: db) else { throw AuditStoreError.sessionNotFound(id) }
            guard session.isOpen else { throw AuditStoreError.sessionAlreadyEnded(id) }
            guard date.nanosecondsSinceEpoch >= session.startedAt.nanosecondsSinceEpoch else { throw AuditStoreError.dateBeforeSessionStart }
            try db.statement("UPDATE audit_sessions SET ended_at = ? WHERE id = ?").bind(.date(date), .integer(id)).run()
            return try AuditQueries.session(id: id, db: db)!
        }
    }

    /// Open or ended: its markers go, its flows are untagged, and tagging stops.
    public func deleteRecording(id: Int64) throws {
        try write { db in
            try db.statement("DELETE FROM audit_sessions WHERE id = ?").bind(.integer(id)).run()
            guard db.changes == 1 else { throw AuditStoreError.sessionNotFound(id) }
        }
    }

    /// The only open session: nil when none is open or when several phones are being recorded.
    public func openRecording() throws -> Recording? {
        try reading { try $0.openRecording() }
    }

    /// Every open session, oldest first.
    public func openRecordings() throws -> [Recording] {
        try reading { try $0.openRecordings() }
    }

    public func openRecording(phone: String) throws -> Recording? {
        try reading { try $0.openRecording(phone: phone) }
    }

    /// The recording a connection from CLIENT belongs to, by the rule tagging follows.
    public func openRecording(client: IPAddress) throws -> Recording? {
        try reading { try $0.openRecording(client: client) }
    }

    public func auditRecordings() throws -> [RecordingWithProject] {
        try reading { try $0.auditRecordings() }
    }

    public func recording(id: Int64) throws -> Recording? {
        try reading { try $0.recording(id: id) }
    }

    public func recordings(forProject projectID: Int64) throws -> [Recording] {
        try reading { try $0.recordings(forProject: projectID) }
    }

    /// Markers go into an open session only, at or after its start.
    public func addMarker(_ kind: SessionMarkerKind, toSession id: Int64, at date: Date) throws -> SessionMarker {
        let kind = try Self.validMarker(kind)
        return try write { db in
            guard let session = try AuditQueries.session(id: id, db: db) else { throw AuditStoreError.sessionNotFound(id) }
            return try Self.insertMarker(kind, into: session, at: date, db: db)
        }
    }

    /// Reads the open session and places the marker in one write transaction, so that a
    /// session ended by another process in between can never receive it. With a phone named, its
    /// recording is the one; without, the only one open, and nothing when several are.
    public func addMarkerToOpenSession(
        _ kind: SessionMarkerKind, phone: String? = nil, at date: Date
    ) throws -> OpenSessionMarkerOutcome {
        let kind = try Self.validMarker(kind)
        return try write { db in
            let recordings = try AuditQueries.recordings(db: db)
            let candidates = phone.map { name in recordings.filter { $0.session.phone?.name == name } } ?? recordings
            guard let recording = candidates.first else { return .noOpenSession }
            guard candidates.count == 1 else { return .severalOpen(candidates) }
            let marker = try Self.insertMarker(kind, into: recording.session, at: date, db: db)
            return .placed(marker, in: recording)
        }
    }

    public func auditRecording() throws -> RecordingWithProject? {
        try reading { try $0.auditRecording() }
    }

    public func markers(forSession id: Int64) throws -> [SessionMarker] {
        try reading { try $0.markers(forSession: id) }
    }

    // MARK: - Rules

    private static func validName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw AuditStoreError.emptyProjectName }
        return trimmed
    }

    private static func checkAllowlist(_ entries: [AllowlistEntry]) throws {
        var seen = Set<String>()
        for entry in entries where !seen.insert(entry.pattern.text).inserted {
            throw AuditStoreError.duplicateAllowlistPattern(entry.pattern.text)
        }
    }

    private static func validMarker(_ kind: SessionMarkerKind) throws -> SessionMarkerKind {
        guard case .custom(let label) = kind else { return kind }
        let trimmed = label.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw AuditStoreError.emptyMarkerLabel }
        return .custom(trimmed)
    }

    private static func insertAllowlist(_ entries: [AllowlistEntry], project: Int64, db: SQLiteConnection) throws {
        let insert = "INSERT INTO audit_allowlist (project_id, position, pattern, note) VALUES (?, ?, ?, ?)"
        for (position, entry) in entries.enumerated() {
            try db.statement(insert)
                .bind(.integer(project), .integer(Int64(position)), .text(entry.pattern.text), .optionalText(entry.note))
                .run()
        }
    }

    private static func insertMarker(
        _ kind: SessionMarkerKind, into session: Recording, at date: Date, db: SQLiteConnection
    ) throws -> SessionMarker {
        guard session.isOpen else { throw AuditStoreError.sessionAlreadyEnded(session.id) }
        guard date.nanosecondsSinceEpoch >= session.startedAt.nanosecondsSinceEpoch else { throw AuditStoreError.dateBeforeSessionStart }
        let (code, label) = AuditSerialization.code(of: kind)
        try db.statement("INSERT INTO audit_markers (session_id, ts, kind, label) VALUES (?, ?, ?, ?)")
            .bind(.integer(session.id), .date(date), .integer(code.rawValue), .optionalText(label))
            .run()
        return SessionMarker(id: db.lastInsertedRowID, sessionID: session.id, date: Instant(date), kind: kind)
    }
}
