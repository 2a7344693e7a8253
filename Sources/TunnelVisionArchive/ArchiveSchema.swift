/// The archive's tables, created and migrated forward by the tool: the counterpart of the
/// history's `user_version` is the one row of `archive_schema`. Steps are appended, never edited.
///
/// A recording's rows keep the gateway's own column values in `row` (JSON: integers as numbers,
/// text as strings, bytes as `{"blob": base64}`), so that a reader rebuilds exactly what the
/// gateway held; the typed columns beside it are for queries.
public enum ArchiveSchema {
    static let steps: [String] = [
        """
        CREATE TABLE gateways (
            id serial PRIMARY KEY,
            name text NOT NULL UNIQUE,
            history_schema integer NOT NULL,
            first_published timestamptz NOT NULL DEFAULT now(),
            last_published timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE projects (
            id serial PRIMARY KEY,
            name text NOT NULL UNIQUE,
            bundle_id text,
            catalogue_version text,
            created_at bigint NOT NULL,
            revision integer NOT NULL DEFAULT 1,
            edited_by integer REFERENCES gateways(id),
            edited_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE project_allowlist (
            project_id integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
            position integer NOT NULL,
            pattern text NOT NULL,
            note text,
            PRIMARY KEY (project_id, position)
        );
        CREATE TABLE recordings (
            id serial PRIMARY KEY,
            gateway_id integer NOT NULL REFERENCES gateways(id),
            local_id bigint NOT NULL,
            project_id integer NOT NULL REFERENCES projects(id),
            kind integer NOT NULL,
            app_version text,
            build_number text,
            device_model text NOT NULL,
            os_version text NOT NULL,
            phone_name text,
            started_at bigint NOT NULL,
            ended_at bigint NOT NULL,
            history_schema integer NOT NULL,
            row jsonb NOT NULL,
            published_at timestamptz NOT NULL DEFAULT now(),
            UNIQUE (gateway_id, local_id)
        );
        CREATE TABLE markers (
            recording_id integer NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
            local_id bigint NOT NULL,
            ts bigint NOT NULL,
            kind integer NOT NULL,
            label text,
            row jsonb NOT NULL,
            PRIMARY KEY (recording_id, local_id)
        );
        CREATE TABLE flows (
            recording_id integer NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
            local_id bigint NOT NULL,
            protocol integer NOT NULL,
            a_address text NOT NULL,
            a_port integer NOT NULL,
            b_address text NOT NULL,
            b_port integer NOT NULL,
            first_seen bigint NOT NULL,
            last_seen bigint NOT NULL,
            name text,
            row jsonb NOT NULL,
            relay jsonb,
            PRIMARY KEY (recording_id, local_id)
        );
        CREATE TABLE findings (
            recording_id integer NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
            position integer NOT NULL,
            kind text NOT NULL,
            flow_ids bigint[] NOT NULL,
            finding jsonb NOT NULL,
            PRIMARY KEY (recording_id, position)
        );
        CREATE TABLE findings_documents (
            recording_id integer PRIMARY KEY REFERENCES recordings(id) ON DELETE CASCADE,
            document jsonb NOT NULL
        );
        CREATE TABLE bundles (
            recording_id integer PRIMARY KEY REFERENCES recordings(id) ON DELETE CASCADE,
            file_name text NOT NULL,
            manifest_sha256 text NOT NULL,
            size bigint NOT NULL,
            bytes bytea NOT NULL
        );
        """,
        // The requests the relay read inside a flow: the gateway's rows, in order, as a JSON array.
        """
        ALTER TABLE flows ADD COLUMN requests jsonb;
        """,
    ]

    public static var version: Int { steps.count }

    /// Creates the archive's tables or brings them forward, under a lock so that two gateways
    /// starting at once do not both migrate; refuses an archive newer than this tool.
    public static func migrate(_ connection: ArchiveConnection) throws(ArchiveError) {
        try connection.inTransaction { () throws(ArchiveError) in
            // A fixed key: every tool that migrates this archive takes the same lock.
            try connection.execute("SELECT pg_advisory_xact_lock(7386010029)")
            try connection.execute("CREATE TABLE IF NOT EXISTS archive_schema (version integer NOT NULL)")
            let found = Int(try connection.value("SELECT version FROM archive_schema") ?? "0") ?? 0
            if found > version { throw .newerSchema(found: found, supported: version) }
            if try connection.value("SELECT count(*) FROM archive_schema") == "0" {
                try connection.execute("INSERT INTO archive_schema (version) VALUES (0)")
            }
            for step in steps.dropFirst(found) {
                try connection.executeScript(step)
            }
            try connection.execute("UPDATE archive_schema SET version = $1", [String(version)])
        }
    }
}
