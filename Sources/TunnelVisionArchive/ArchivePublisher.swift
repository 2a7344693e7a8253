import Foundation

/// What publishing one recording did.
public enum PublicationOutcome: Sendable, Equatable {
    case published(flows: Int)
    /// The archive already held it (an earlier run committed it): nothing was written.
    case alreadyArchived
}

/// Writes a gateway's recordings into the archive, one transaction each: a reader sees all of a
/// recording or none of it, and a run after a crash or a lost connection finds what committed
/// and never writes it twice.
public struct ArchivePublisher {
    public let connection: ArchiveConnection
    public let gateway: String

    /// Flows go in this many to a statement: fewer round trips, well under libpq's 65,535 parameters.
    static let flowsPerStatement = 500

    public init(connection: ArchiveConnection, gateway: String) {
        self.connection = connection
        self.gateway = gateway
    }

    /// The local ids of this gateway's recordings the archive holds.
    public func archivedRecordingIDs() throws(ArchiveError) -> Set<Int64> {
        let rows = try connection.execute(
            "SELECT r.local_id FROM recordings r JOIN gateways g ON g.id = r.gateway_id WHERE g.name = $1", [gateway])
        return Set(rows.compactMap { $0.first.flatMap { $0 }.flatMap { Int64($0) } })
    }

    /// `findingsDocument` is the findings as the gateway judged them (the bundle's findings.json).
    /// `bundle`, when given, is kept with its bytes (in the database: one place to back up, and
    /// the same transaction as the rows).
    public func publish(
        _ extract: RecordingExtract, findingsDocument: String, bundle: PublishedBundle?
    ) throws(ArchiveError) -> PublicationOutcome {
        try connection.inTransaction { () throws(ArchiveError) -> PublicationOutcome in
            // Two runs of one gateway at once (a timer and a person) wait for each other here.
            try connection.execute("SELECT pg_advisory_xact_lock(hashtext($1))", [gateway])
            let gatewayID = try connection.value(
                """
                INSERT INTO gateways (name, history_schema) VALUES ($1, $2)
                ON CONFLICT (name) DO UPDATE SET last_published = now(), history_schema = EXCLUDED.history_schema
                RETURNING id
                """, [gateway, String(extract.historySchema)]) ?? ""
            if try connection.value(
                "SELECT 1 FROM recordings WHERE gateway_id = $1 AND local_id = $2", [gatewayID, String(extract.localID)]) != nil {
                return .alreadyArchived
            }
            let projectID = try projectID(for: extract, gatewayID: gatewayID)
            let row = extract.recording
            let recordingID = try connection.value(
                """
                INSERT INTO recordings (gateway_id, local_id, project_id, kind, app_version, build_number, device_model, os_version,
                    phone_name, started_at, ended_at, history_schema, row)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb) RETURNING id
                """,
                [gatewayID, String(extract.localID), projectID, row.integer("kind").map(String.init), row.text("app_version"),
                 row.text("build_number"), row.text("device_model") ?? "", row.text("os_version") ?? "", row.text("phone_name"),
                 row.integer("started_at").map(String.init), row.integer("ended_at").map(String.init),
                 String(extract.historySchema), RowJSON.text(row)]) ?? ""
            for marker in extract.markers {
                try connection.execute(
                    "INSERT INTO markers (recording_id, local_id, ts, kind, label, row) VALUES ($1, $2, $3, $4, $5, $6::jsonb)",
                    [recordingID, marker.integer("id").map(String.init), marker.integer("ts").map(String.init),
                     marker.integer("kind").map(String.init), marker.text("label"), RowJSON.text(marker)])
            }
            try insertFlows(extract, recordingID: recordingID)
            try insertFindings(findingsDocument, recordingID: recordingID)
            if let bundle {
                try connection.execute(
                    "INSERT INTO bundles (recording_id, file_name, manifest_sha256, size, bytes) VALUES ($1, $2, $3, $4, decode($5, 'base64'))",
                    [recordingID, bundle.fileName, bundle.manifestSHA256, String(bundle.bytes.count), bundle.bytes.base64EncodedString()])
            }
            return .published(flows: extract.flows.count)
        }
    }

    /// The lab's project of that name; created from the gateway's when the archive has none yet.
    private func projectID(for extract: RecordingExtract, gatewayID: String) throws(ArchiveError) -> String {
        if let id = try connection.value("SELECT id FROM projects WHERE name = $1", [extract.projectName]) { return id }
        let project = extract.project
        let id = try connection.value(
            """
            INSERT INTO projects (name, bundle_id, catalogue_version, created_at, edited_by) VALUES ($1, $2, $3, $4, $5) RETURNING id
            """,
            [extract.projectName, project.text("bundle_id"), project.text("catalogue_version"),
             project.integer("created_at").map(String.init), gatewayID]) ?? ""
        for entry in extract.allowlist {
            try connection.execute(
                "INSERT INTO project_allowlist (project_id, position, pattern, note) VALUES ($1, $2, $3, $4)",
                [id, entry.integer("position").map(String.init), entry.text("pattern"), entry.text("note")])
        }
        return id
    }

    private func insertFlows(_ extract: RecordingExtract, recordingID: String) throws(ArchiveError) {
        let relays = Dictionary(extract.relays.compactMap { row in row.integer("flow_id").map { ($0, row) } }, uniquingKeysWith: { first, _ in first })
        let requests = Dictionary(grouping: extract.requests) { $0.integer("flow_id") ?? 0 }
        let columns = 13
        var start = 0
        while start < extract.flows.count {
            let batch = extract.flows[start..<min(start + Self.flowsPerStatement, extract.flows.count)]
            var values: [String] = [], parameters: [String?] = []
            for (offset, flow) in batch.enumerated() {
                let base = offset * columns
                values.append("(" + (1...columns).map { index in
                    "$\(base + index)" + (index >= 11 ? "::jsonb" : "")
                }.joined(separator: ", ") + ")")
                let id = flow.integer("id") ?? 0
                let name = flow.text("sni") ?? flow.text("http_host") ?? flow.text("socks_host") ?? flow.text("dns_name")
                parameters += [
                    recordingID, String(id), flow.integer("protocol").map(String.init), flow.text("a_address"),
                    flow.integer("a_port").map(String.init), flow.text("b_address"), flow.integer("b_port").map(String.init),
                    flow.integer("first_seen").map(String.init), flow.integer("last_seen").map(String.init), name,
                    RowJSON.text(flow), relays[id].map(RowJSON.text),
                    requests[id].map { "[" + $0.map(RowJSON.text).joined(separator: ",") + "]" },
                ]
            }
            try connection.execute(
                """
                INSERT INTO flows (recording_id, local_id, protocol, a_address, a_port, b_address, b_port, first_seen, last_seen,
                    name, row, relay, requests) VALUES
                """ + values.joined(separator: ", "), parameters)
            start += Self.flowsPerStatement
        }
    }

    /// The document whole, and each finding as a row of its own for queries across gateways.
    private func insertFindings(_ document: String, recordingID: String) throws(ArchiveError) {
        try connection.execute(
            "INSERT INTO findings_documents (recording_id, document) VALUES ($1, $2::jsonb)", [recordingID, document])
        try connection.execute(
            """
            INSERT INTO findings (recording_id, position, kind, flow_ids, finding)
            SELECT $1, ordinality, f.value->>'kind',
                ARRAY(SELECT jsonb_array_elements_text(COALESCE(f.value->'flows', '[]'::jsonb))::bigint), f.value
            FROM jsonb_array_elements((SELECT document->'findings' FROM findings_documents WHERE recording_id = $1::integer))
                WITH ORDINALITY AS f(value, ordinality)
            """, [recordingID])
    }
}
