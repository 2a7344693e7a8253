import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionStore

@Suite struct SchemaTests {
    func columns(_ table: String, _ store: History) throws -> [String] {
        try store.access { db in try db.statement("SELECT name FROM pragma_table_info(?)").bind(.text(table)).rows { $0.text(0) } }
    }

    func foreignKeys(_ table: String, _ store: History) throws -> [String] {
        try store.access { db in
            try db.statement("SELECT \"from\", \"table\", on_delete FROM pragma_foreign_key_list(?) ORDER BY \"from\"")
                .bind(.text(table)).rows { "\($0.text(0)) → \($0.text(1)) \($0.text(2))" }
        }
    }

    /// The audit tables, column for column: a change here is a change of the disk format.
    @Test func auditTablesAreSchemaV6() throws {
        let store = try TemporaryDatabase().open()
        #expect(try columns("audit_projects", store) == ["id", "name", "bundle_id", "catalogue_version", "created_at"])
        #expect(try columns("audit_allowlist", store) == ["id", "project_id", "position", "pattern", "note"])
        #expect(try columns("audit_sessions", store) == [
            "id", "project_id", "kind", "app_version", "build_number", "device_model", "os_version", "tool_version",
            "inspection_enabled", "ca_trusted", "started_at", "ended_at", "notes",
            // The relay: which CA it ran with, and the UDP/443 drop.
            "ca_fingerprint", "quic_dropped",
            // Certificate validation runs: what the relay presents, and the recording's own CA.
            "inspection_mode", "validation_ca_fingerprint",
            "gateway_resolvers",
            // Phones: the phone the recording belongs to, as it was at the start.
            "phone_name", "phone_ipv4", "phone_ipv6", "phone_public_key", "phone_key_fingerprint",
            // whether the TLS secrets of terminated connections are kept (--keep-keys).
            "keep_keys",
            // whether the relay mirrored servers whose certificate did not verify.
            "upstream_mirror",
            // where the CA was declared installed (user, user-full-trust, system).
            "ca_store",
            // whether the paths of the requests read inside inspected connections are kept.
            "keep_request_paths",
        ])
        #expect(try columns("phones", store) == ["name", "ipv4", "ipv6", "public_key", "key_fingerprint", "added_at"])
        #expect(try columns("flow_relay", store) == [
            "flow_id", "decision", "event", "alert", "reason", "upstream_verified", "upstream_verification",
            "upstream_alpn", "key_log",
            // What the phone was shown, and a name sent with a trailing dot.
            "presented", "server_name_sent",
            // The requests read past the relay's bound per connection.
            "requests_not_kept",
        ])
        #expect(try foreignKeys("flow_relay", store) == ["flow_id → flows CASCADE"])
        #expect(try columns("audit_markers", store) == ["id", "session_id", "ts", "kind", "label"])
        // Later migrations append: the HTTP host and 0-RTT columns follow the tag, then the change
        // marker, then the record of what a TCP connection carried, then the SOCKS host, then
        // whether the record continues a connection opened before it, then QUIC's first version
        // and the PROXY protocol header.
        #expect(try Array(columns("flows", store).suffix(9)) == [
            "audit_session_id", "http_host", "client_early_data", "changed", "tcp_payload", "socks_host", "continuation",
            "quic_first_version", "proxy_protocol",
        ])
        #expect(try foreignKeys("audit_allowlist", store) == ["project_id → audit_projects CASCADE"])
        #expect(try foreignKeys("audit_sessions", store) == ["project_id → audit_projects CASCADE"])
        #expect(try foreignKeys("audit_markers", store) == ["session_id → audit_sessions CASCADE"])
        #expect(try foreignKeys("flows", store).contains("audit_session_id → audit_sessions SET NULL"))
        // The capture run a flow belongs to is named so, not "session" (the recording's word).
        #expect(try columns("flows", store).prefix(2) == ["id", "capture_run"])
        #expect(try foreignKeys("flows", store).contains("capture_run → capture_sessions NO ACTION"))
    }

    @Test func indexesOfSchemaV6() throws {
        let store = try TemporaryDatabase().open()
        let sql = try store.access { db in
            try db.statement("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").rows { ($0.text(0), $0.text(1)) }
        }
        let byName = Dictionary(uniqueKeysWithValues: sql)
        // Phones replaced the single open session by one per phone.
        #expect(byName["audit_sessions_single_open"] == nil)
        #expect(byName["audit_sessions_open_per_phone"] ==
            "CREATE UNIQUE INDEX audit_sessions_open_per_phone ON audit_sessions (IFNULL(phone_name, '')) WHERE ended_at IS NULL")
        #expect(byName["flows_session"] == nil)
        #expect(byName["flows_capture_run"] == "CREATE INDEX flows_capture_run ON flows (capture_run)")
        #expect(byName["flows_audit_session"] == "CREATE INDEX flows_audit_session ON flows (audit_session_id, first_seen)")
        let unique = try store.access { db in
            try db.statement("SELECT \"unique\", partial FROM pragma_index_list('audit_allowlist')").rows { ($0.bool(0), $0.bool(1)) }
        }
        #expect(unique.contains { $0.0 && !$0.1 })
    }

    @Test func walForeignKeysAndUserVersion() throws {
        let store = try TemporaryDatabase().open()
        let mode = try store.access { db in try db.statement("PRAGMA journal_mode").firstRow { $0.text(0) } }
        let keys = try store.access { db in try db.statement("PRAGMA foreign_keys").firstRow { $0.int64(0) } }
        #expect(mode == "wal")
        #expect(keys == 1)
        #expect(try store.schemaVersion == History.currentSchemaVersion)
    }

    /// A database written by the first version (history only) opens, migrates, and keeps its flows.
    @Test func anOlderDatabaseOpensAndMigrates() throws {
        let db = TemporaryDatabase()
        let old = try History(path: db.path, migratingTo: 1)
        #expect(try old.schemaVersion == 1)
        let capture = try old.beginCaptureRun(toolVersion: "0.1", input: "tun:tv0", at: at(0))
        try old.access { db in
            try db.execute("""
                INSERT INTO flows (session, protocol, a_address, a_port, b_address, b_port, first_seen, last_seen)
                VALUES (\(capture.id), 17, '10.77.0.2', 5353, '10.0.0.1', 53, 1, 2)
                """)
        }
        let migrated = try db.open()
        #expect(try migrated.schemaVersion == History.currentSchemaVersion)
        #expect(try migrated.flows(inCaptureRun: capture.id).count == 1)
        let project = try migrated.createAuditProject(projectDraft(), at: at(1))
        #expect(try migrated.auditProject(id: project.id) != nil)
    }

    @Test func aNewerDatabaseIsRefusedNotDowngraded() throws {
        let db = TemporaryDatabase()
        let store = try db.open()
        try store.access { db in try db.execute("PRAGMA user_version = 99") }
        #expect(throws: HistoryError.newerSchema(path: db.path, found: 99, supported: History.currentSchemaVersion)) {
            try History(path: db.path)
        }
    }

    @Test func aFileThatIsNotADatabaseIsCorrupt() throws {
        let db = TemporaryDatabase()
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: db.path))
        #expect(throws: HistoryError.corrupt(path: db.path)) { try History(path: db.path) }
    }

    @Test func aMissingFolderCannotBeOpened() throws {
        let path = "/nonexistent-\(UUID().uuidString)/history.sqlite"
        #expect {
            try History(path: path)
        } throws: { error in
            if case HistoryError.cannotOpen(let failedPath, _) = error { return failedPath == path }
            return false
        }
    }
}

@Suite struct SharedFileTests {
    /// The daemon and tvctl share the history through their group: a new file is 0660 less
    /// the umask, not SQLite's 0644, and its journals follow the file's mode.
    @Test func aNewHistoryIsWritableByTheGroup() throws {
        let db = TemporaryDatabase()
        let previous = umask(0o007)
        defer { umask(previous) }
        let store = try db.open()
        _ = try store.createAuditProject(projectDraft(), at: at(0))
        for path in [db.path, db.path + "-wal"] {
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
            #expect(mode & 0o777 == 0o660, "\(path) has mode \(String(mode, radix: 8))")
        }
    }
}
