/// The schema as forward-only migrations. `PRAGMA user_version` is how many have run; a
/// database is only ever moved forward, one step at a time, each step in its own transaction.
enum Schema {
    static var version: Int { migrations.count }

    static let migrations: [String] = [
        // 1: the history of what crossed the tap.
        """
        CREATE TABLE capture_sessions (
            id INTEGER PRIMARY KEY,
            started_at INTEGER NOT NULL,
            ended_at INTEGER,
            tool_version TEXT NOT NULL,
            input TEXT NOT NULL
        );
        CREATE TABLE capture_files (
            sequence INTEGER PRIMARY KEY CHECK (sequence > 0),
            path TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            closed_at INTEGER,
            bytes INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE flows (
            id INTEGER PRIMARY KEY,
            session INTEGER NOT NULL REFERENCES capture_sessions(id),
            protocol INTEGER NOT NULL,
            a_address TEXT NOT NULL,
            a_port INTEGER NOT NULL,
            b_address TEXT NOT NULL,
            b_port INTEGER NOT NULL,
            first_seen INTEGER NOT NULL,
            last_seen INTEGER NOT NULL,
            bytes_out INTEGER NOT NULL DEFAULT 0,
            bytes_in INTEGER NOT NULL DEFAULT 0,
            packet_count INTEGER NOT NULL DEFAULT 0,
            tls_status INTEGER NOT NULL DEFAULT 0,
            sni TEXT,
            dns_name TEXT,
            dns_other_names TEXT,
            stream_opening INTEGER,
            client_versions_form INTEGER,
            client_versions TEXT,
            client_alpn TEXT,
            client_alpn_omitted INTEGER,
            client_dropped_identifiers INTEGER,
            client_ech INTEGER,
            server_answer INTEGER,
            server_version INTEGER,
            server_cipher INTEGER,
            server_from_hrr INTEGER,
            server_source INTEGER,
            server_alert INTEGER,
            server_certificates TEXT,
            quic_version INTEGER,
            quic_end INTEGER
        );
        CREATE INDEX flows_session ON flows (session);
        CREATE INDEX flows_last_seen ON flows (last_seen);
        CREATE TABLE packets (
            flow_id INTEGER NOT NULL REFERENCES flows(id) ON DELETE CASCADE,
            ts INTEGER NOT NULL,
            direction INTEGER NOT NULL,
            wire_length INTEGER NOT NULL,
            file_seq INTEGER NOT NULL,
            file_offset INTEGER NOT NULL
        );
        CREATE INDEX packets_flow ON packets (flow_id, ts);
        CREATE TABLE dns_answers (
            id INTEGER PRIMARY KEY,
            ts INTEGER NOT NULL,
            query_name TEXT NOT NULL,
            address TEXT NOT NULL,
            ttl INTEGER NOT NULL,
            flow_id INTEGER REFERENCES flows(id) ON DELETE CASCADE
        );
        CREATE INDEX dns_answers_flow ON dns_answers (flow_id);
        """,
        // 2: the audit model: projects with their allowlists, sessions and their markers.
        """
        CREATE TABLE audit_projects (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            bundle_id TEXT,
            catalogue_version TEXT,
            created_at INTEGER NOT NULL
        );
        CREATE TABLE audit_allowlist (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES audit_projects(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            pattern TEXT NOT NULL,
            note TEXT,
            UNIQUE (project_id, pattern)
        );
        CREATE TABLE audit_sessions (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES audit_projects(id) ON DELETE CASCADE,
            kind INTEGER NOT NULL,
            app_version TEXT,
            build_number TEXT,
            device_model TEXT NOT NULL,
            os_version TEXT NOT NULL,
            tool_version TEXT NOT NULL,
            inspection_enabled INTEGER NOT NULL,
            ca_trusted INTEGER NOT NULL,
            started_at INTEGER NOT NULL,
            ended_at INTEGER,
            notes TEXT NOT NULL DEFAULT ''
        );
        CREATE UNIQUE INDEX audit_sessions_single_open ON audit_sessions ((ended_at IS NULL)) WHERE ended_at IS NULL;
        CREATE TABLE audit_markers (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES audit_sessions(id) ON DELETE CASCADE,
            ts INTEGER NOT NULL,
            kind INTEGER NOT NULL,
            label TEXT
        );
        ALTER TABLE flows ADD COLUMN audit_session_id INTEGER REFERENCES audit_sessions(id) ON DELETE SET NULL;
        CREATE INDEX flows_audit_session ON flows (audit_session_id, first_seen);
        """,
        // 3: what the daemon tells tvctl: its settings and a heartbeat.
        """
        CREATE TABLE daemon_settings (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE TABLE daemon_heartbeat (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            at INTEGER NOT NULL,
            pid INTEGER NOT NULL,
            capture_session INTEGER,
            input TEXT NOT NULL,
            packets_seen INTEGER NOT NULL,
            bytes_seen INTEGER NOT NULL,
            packets_recorded INTEGER NOT NULL,
            packets_not_captured INTEGER NOT NULL,
            packets_dropped INTEGER NOT NULL,
            queue_depth INTEGER NOT NULL,
            capture_bytes INTEGER NOT NULL
        );
        """,
        // 4: the host an HTTP request named, and 0-RTT offered in the ClientHello.
        """
        ALTER TABLE flows ADD COLUMN http_host TEXT;
        ALTER TABLE flows ADD COLUMN client_early_data INTEGER;
        """,
        // 5: what the TLS inspection relay kept of a flow, and which CA a session's
        // inspection ran with and whether UDP/443 was dropped.
        """
        CREATE TABLE flow_relay (
            flow_id INTEGER PRIMARY KEY REFERENCES flows(id) ON DELETE CASCADE,
            decision TEXT NOT NULL,
            event TEXT,
            alert INTEGER,
            reason TEXT,
            upstream_verified INTEGER,
            upstream_verification TEXT,
            upstream_alpn TEXT,
            key_log TEXT NOT NULL DEFAULT ''
        );
        ALTER TABLE audit_sessions ADD COLUMN ca_fingerprint TEXT;
        ALTER TABLE audit_sessions ADD COLUMN quic_dropped INTEGER NOT NULL DEFAULT 0;
        -- Before this step no relay existed: a session that recorded inspection on from the
        -- daemon's setting alone was never inspected, and must not say pinning can be read.
        UPDATE audit_sessions SET inspection_enabled = 0 WHERE ca_fingerprint IS NULL;
        """,
        // 6: certificate validation runs: what the relay presents during a recording and
        // the fingerprint of the CA it made for that recording alone. A session from before has
        // no mode: it is read from inspection_enabled.
        """
        ALTER TABLE audit_sessions ADD COLUMN inspection_mode INTEGER;
        ALTER TABLE audit_sessions ADD COLUMN validation_ca_fingerprint TEXT;
        """,
        // 7: the gateway's resolvers a session was recorded with, comma-separated.
        """
        ALTER TABLE audit_sessions ADD COLUMN gateway_resolvers TEXT NOT NULL DEFAULT '';
        """,
        // 8: packets the tap saw that have no row, per capture session, minute and reason.
        """
        CREATE TABLE packet_losses (
            capture_session INTEGER NOT NULL REFERENCES capture_sessions(id),
            minute INTEGER NOT NULL,
            reason INTEGER NOT NULL,
            packets INTEGER NOT NULL CHECK (packets > 0),
            PRIMARY KEY (capture_session, minute, reason)
        );
        """,
        // 9: a change marker on every flow, so that a live view reads only the flows
        // written since its last read. The flow upserts (FlowColumns) set it; an index keeps
        // both the next marker and a read of what changed since cheap.
        """
        ALTER TABLE flows ADD COLUMN changed INTEGER NOT NULL DEFAULT 0;
        UPDATE flows SET changed = id;
        CREATE INDEX flows_changed ON flows (changed);
        """,
        // 10: the gateway's phones, and a recording that belongs to one. A session keeps
        // its phone's name, addresses and key as they were at its start, so that removing the
        // phone later changes no recording. One open recording per phone; a session of no phone
        // (the whole tap, and every session from before phones) counts as one more "phone".
        """
        CREATE TABLE phones (
            name TEXT PRIMARY KEY,
            ipv4 TEXT NOT NULL UNIQUE,
            ipv6 TEXT NOT NULL UNIQUE,
            public_key TEXT NOT NULL UNIQUE,
            key_fingerprint TEXT NOT NULL,
            added_at INTEGER NOT NULL
        );
        ALTER TABLE audit_sessions ADD COLUMN phone_name TEXT;
        ALTER TABLE audit_sessions ADD COLUMN phone_ipv4 TEXT;
        ALTER TABLE audit_sessions ADD COLUMN phone_ipv6 TEXT;
        ALTER TABLE audit_sessions ADD COLUMN phone_public_key TEXT;
        ALTER TABLE audit_sessions ADD COLUMN phone_key_fingerprint TEXT;
        DROP INDEX audit_sessions_single_open;
        CREATE UNIQUE INDEX audit_sessions_open_per_phone ON audit_sessions (IFNULL(phone_name, '')) WHERE ended_at IS NULL;
        """,
        // 11: the packet index as runs (`PacketRuns`): one row per flow, capture file
        // (0: not captured) and batch, its packets as JSON entries against its first one, in
        // place of one row per packet. The rows of before become runs of at most 4096 packets;
        // `packets` stays as a view with the columns it had, for sqlite3 and the lab.
        """
        CREATE TABLE packet_runs (
            flow_id INTEGER NOT NULL REFERENCES flows(id) ON DELETE CASCADE,
            file_seq INTEGER NOT NULL,
            first_ts INTEGER NOT NULL,
            first_offset INTEGER NOT NULL,
            packets INTEGER NOT NULL CHECK (packets > 0),
            entries TEXT NOT NULL
        );
        INSERT INTO packet_runs (flow_id, file_seq, first_ts, first_offset, packets, entries)
        WITH located AS (
            SELECT flow_id, ts, direction, wire_length, file_offset,
                CASE WHEN file_offset = 0 THEN 0 ELSE file_seq END AS file,
                (ROW_NUMBER() OVER (PARTITION BY flow_id, CASE WHEN file_offset = 0 THEN 0 ELSE file_seq END
                    ORDER BY file_offset, ts, rowid) - 1) / 4096 AS chunk
            FROM packets
        ), based AS (
            SELECT *, MIN(ts) OVER run AS first_ts, MIN(file_offset) OVER run AS first_offset
            FROM located WINDOW run AS (PARTITION BY flow_id, file, chunk)
        )
        SELECT flow_id, file, first_ts, first_offset, COUNT(*),
            json_group_array(json_array(ts - first_ts, direction, wire_length, file_offset - first_offset))
        FROM (SELECT * FROM based ORDER BY flow_id, file, chunk, file_offset, ts)
        GROUP BY flow_id, file, chunk;
        DROP INDEX packets_flow;
        DROP TABLE packets;
        CREATE INDEX packet_runs_flow ON packet_runs (flow_id);
        CREATE INDEX packet_runs_file ON packet_runs (file_seq);
        CREATE VIEW packets (flow_id, ts, direction, wire_length, file_seq, file_offset) AS
            SELECT r.flow_id, r.first_ts + json_extract(e.value, '$[0]'), json_extract(e.value, '$[1]'),
                json_extract(e.value, '$[2]'), r.file_seq, r.first_offset + json_extract(e.value, '$[3]')
            FROM packet_runs r, json_each(r.entries) e;
        """,
        // 12: whether a TCP connection carried payload, so that one whose start was
        // seen and that sent nothing has its own gap (NULL for flows stored before: not known);
        // and a HelloRetryRequest stored before a retry read alone was told from the ServerHello
        // read after one is marked as not told apart (3), not left claiming to be the retry (1).
        """
        ALTER TABLE flows ADD COLUMN tcp_payload INTEGER;
        UPDATE flows SET server_from_hrr = 3 WHERE server_from_hrr = 1;
        """,
        // 13: what the passive tap's libpcap counted as dropped over a capture session,
        // by the kernel and by the interface. NULL: an input without such a count (TUN, file).
        """
        ALTER TABLE capture_sessions ADD COLUMN kernel_dropped INTEGER;
        ALTER TABLE capture_sessions ADD COLUMN interface_dropped INTEGER;
        """,
        // 14: the domain a SOCKS CONNECT request named, the name a stream through a
        // SOCKS proxy announced.
        """
        ALTER TABLE flows ADD COLUMN socks_host TEXT;
        """,
        // 15: the last `TapTally` of a capture session — packets the tap handed over and
        // how many of them the history accounts for, at an instant — written with every batch and
        // heartbeat, so that a session that never stopped cleanly has its loss counted at the next
        // start. NULL: not counted (sessions from before, offline imports).
        """
        ALTER TABLE capture_sessions ADD COLUMN packets_handed INTEGER;
        ALTER TABLE capture_sessions ADD COLUMN packets_accounted INTEGER;
        ALTER TABLE capture_sessions ADD COLUMN counted_at INTEGER;
        """,
        // The TLS secrets of terminated connections are kept only for a recording started with
        // --keep-keys (1); otherwise they are not stored at all. A recording from before the
        // choice whose flows already hold secrets counts as having kept them, so the history
        // says truly what it holds (and a bundle --with-keys still finds them).
        """
        ALTER TABLE audit_sessions ADD COLUMN keep_keys INTEGER NOT NULL DEFAULT 0;
        UPDATE audit_sessions SET keep_keys = 1 WHERE id IN (
            SELECT f.audit_session_id FROM flows f JOIN flow_relay r ON r.flow_id = f.id WHERE r.key_log != '');
        """,
        // A TCP flow whose record began after its connection opened (its first packet was not a
        // SYN): 1 opened before the capture session (a restart), 2 before the record (an expiry
        // or eviction). NULL: a record that began with its opening, or stored before.
        """
        ALTER TABLE flows ADD COLUMN continuation INTEGER;
        """,
        // What the relay showed the phone on a connection — the installed CA's leaf,
        // the recording's defect, or a leaf of an untrusted issuer mirroring a server whose own
        // certificate did not verify — and the name as the phone sent it when it ended in a dot;
        // and whether a session's relay mirrored such servers. NULL for rows stored before: not recorded.
        """
        ALTER TABLE flow_relay ADD COLUMN presented TEXT;
        ALTER TABLE flow_relay ADD COLUMN server_name_sent TEXT;
        ALTER TABLE audit_sessions ADD COLUMN upstream_mirror INTEGER;
        """,
        // The version a phone's first QUIC long header carried, where a Version Negotiation moved
        // it to another; and what a PROXY protocol header before a stream's TLS announced
        // (version, source, destination as text).
        """
        ALTER TABLE flows ADD COLUMN quic_first_version INTEGER;
        ALTER TABLE flows ADD COLUMN proxy_protocol TEXT;
        """,
        // The relay in the heartbeat: connections open, those reset at its descriptor ceiling, and
        // its reports that matched no flow of the tap. NULL: no relay running (or a daemon before).
        """
        ALTER TABLE daemon_heartbeat ADD COLUMN relay_connections INTEGER;
        ALTER TABLE daemon_heartbeat ADD COLUMN relay_refused_at_ceiling INTEGER;
        ALTER TABLE daemon_heartbeat ADD COLUMN relay_reports_unmatched INTEGER;
        """,
        // The chain over the capture files: one signed link per finished file (see CaptureSeal).
        // Rows are only ever added; the signature and the link to the row before are what make an
        // edited row show, so the table holds no constraint that a member could lean on instead.
        """
        CREATE TABLE capture_seals (
            position INTEGER PRIMARY KEY,
            sequence INTEGER NOT NULL,
            file_name TEXT NOT NULL,
            bytes INTEGER NOT NULL,
            sha256 TEXT NOT NULL,
            origin TEXT NOT NULL,
            sealed_at INTEGER NOT NULL,
            previous TEXT NOT NULL,
            signature TEXT NOT NULL
        );
        CREATE INDEX capture_seals_sequence ON capture_seals (sequence);
        """,
        // Where the technician declared the inspection CA installed (user, user-full-trust, system):
        // a refusal is told apart from pinning only against acceptances under the same declaration.
        // NULL: not declared trusted, or declared before the store was asked.
        """
        ALTER TABLE audit_sessions ADD COLUMN ca_store TEXT;
        """,
        // A flow's capture run is named as such: "session" in the history means the recording
        // (`audit_session_id`) and nothing else.
        """
        ALTER TABLE flows RENAME COLUMN session TO capture_run;
        DROP INDEX flows_session;
        CREATE INDEX flows_capture_run ON flows (capture_run);
        """,
        // The requests the relay read inside an inspected connection, in the order the phone sent
        // them: facts, never content. The instant in nanoseconds, the version "HTTP/1.1" or
        // "HTTP/2", the path NULL unless the flow's recording was started to keep request paths
        // (`audit_sessions.keep_request_paths`), the status NULL when no final response status was
        // read, the stream NULL for HTTP/1.1. `flow_relay.requests_not_kept`: the requests read
        // past the relay's bound per connection, counted and not kept.
        """
        CREATE TABLE flow_request (
            flow_id INTEGER NOT NULL REFERENCES flows(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            instant INTEGER NOT NULL,
            version TEXT NOT NULL,
            method TEXT NOT NULL,
            authority TEXT,
            path TEXT,
            body_bytes INTEGER NOT NULL,
            status INTEGER,
            stream INTEGER,
            PRIMARY KEY (flow_id, position)
        ) WITHOUT ROWID;
        ALTER TABLE flow_relay ADD COLUMN requests_not_kept INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE audit_sessions ADD COLUMN keep_request_paths INTEGER NOT NULL DEFAULT 0;
        """,
    ]
}
