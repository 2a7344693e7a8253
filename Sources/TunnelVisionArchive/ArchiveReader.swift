import Foundation

/// A recording as the archive lists it.
public struct ArchivedRecording: Sendable, Hashable {
    public let gateway: String
    public let localID: Int64
    public let project: String
    public let release: String?
    public let device: String
    public let os: String
    public let phone: String?
    /// Nanoseconds since 1970, as the history stores instants.
    public let startedAt: Int64
    public let endedAt: Int64
    public let flows: Int
    public let findings: Int

    /// "bench-a:7": how a command names it.
    public var reference: String { "\(gateway):\(localID)" }
}

/// A recording named on the command line: `GATEWAY:ID`.
public struct ArchivedRecordingReference: Sendable, Hashable {
    public let gateway: String
    public let localID: Int64

    /// Nil when the word is not `GATEWAY:NUMBER`.
    public init?(_ word: String) {
        guard let colon = word.lastIndex(of: ":"), let id = Int64(word[word.index(after: colon)...]), id > 0 else { return nil }
        let gateway = String(word[..<colon])
        guard !gateway.isEmpty else { return nil }
        self.gateway = gateway
        localID = id
    }
}

/// What the archive holds, for every gateway.
public struct ArchiveReader {
    public let connection: ArchiveConnection

    public init(connection: ArchiveConnection) { self.connection = connection }

    public func recordings() throws(ArchiveError) -> [ArchivedRecording] {
        try connection.execute(
            """
            SELECT g.name, r.local_id, p.name, CASE WHEN r.kind = 1 THEN r.app_version || ' (' || r.build_number || ')' END,
                r.device_model, r.os_version, r.phone_name, r.started_at, r.ended_at,
                (SELECT count(*) FROM flows f WHERE f.recording_id = r.id),
                (SELECT count(*) FROM findings f WHERE f.recording_id = r.id)
            FROM recordings r JOIN gateways g ON g.id = r.gateway_id JOIN projects p ON p.id = r.project_id
            ORDER BY r.started_at, g.name, r.local_id
            """
        ).map { row in
            ArchivedRecording(
                gateway: row[0] ?? "", localID: Int64(row[1] ?? "") ?? 0, project: row[2] ?? "", release: row[3],
                device: row[4] ?? "", os: row[5] ?? "", phone: row[6], startedAt: Int64(row[7] ?? "") ?? 0,
                endedAt: Int64(row[8] ?? "") ?? 0, flows: Int(row[9] ?? "") ?? 0, findings: Int(row[10] ?? "") ?? 0)
        }
    }

    /// The findings document the gateway wrote when it published the recording.
    public func findingsDocument(_ reference: ArchivedRecordingReference) throws(ArchiveError) -> String {
        guard let document = try connection.value(
            """
            SELECT d.document::text FROM findings_documents d JOIN recordings r ON r.id = d.recording_id
            JOIN gateways g ON g.id = r.gateway_id WHERE g.name = $1 AND r.local_id = $2
            """, [reference.gateway, String(reference.localID)])
        else { throw .recordingNotFound("\(reference.gateway):\(reference.localID)") }
        return document
    }

    /// The bundle the gateway published with the recording.
    public func bundle(_ reference: ArchivedRecordingReference) throws(ArchiveError) -> PublishedBundle {
        guard let row = try connection.execute(
            """
            SELECT b.file_name, b.manifest_sha256, encode(b.bytes, 'base64') FROM bundles b JOIN recordings r ON r.id = b.recording_id
            JOIN gateways g ON g.id = r.gateway_id WHERE g.name = $1 AND r.local_id = $2
            """, [reference.gateway, String(reference.localID)]).first,
            let bytes = row[2].flatMap({ Data(base64Encoded: $0, options: .ignoreUnknownCharacters) })
        else { throw .noBundle("\(reference.gateway):\(reference.localID)") }
        return PublishedBundle(fileName: row[0] ?? "", manifestSHA256: row[1] ?? "", bytes: bytes)
    }

    /// A recording's rows as the gateway published them, its project being the lab's (today's
    /// allowlist in the archive, as a local diff judges by today's allowlist).
    public func extract(_ reference: ArchivedRecordingReference) throws(ArchiveError) -> RecordingExtract {
        guard let head = try connection.execute(
            """
            SELECT r.id, r.row::text, r.history_schema, p.id, p.name, p.bundle_id, p.catalogue_version, p.created_at
            FROM recordings r JOIN gateways g ON g.id = r.gateway_id JOIN projects p ON p.id = r.project_id
            WHERE g.name = $1 AND r.local_id = $2
            """, [reference.gateway, String(reference.localID)]).first,
            let recording = head[1].flatMap(RowJSON.row)
        else { throw .recordingNotFound("\(reference.gateway):\(reference.localID)") }
        let id = head[0]
        func rows(_ sql: String) throws(ArchiveError) -> [HistoryRow] {
            try connection.execute(sql, [id]).compactMap { $0[0].flatMap(RowJSON.row) }
        }
        let project = HistoryRow(columns: [
            ("id", .integer(Int64(head[3] ?? "") ?? 0)), ("name", .text(head[4] ?? "")),
            ("bundle_id", head[5].map(RowValue.text) ?? .null), ("catalogue_version", head[6].map(RowValue.text) ?? .null),
            ("created_at", .integer(Int64(head[7] ?? "") ?? 0)),
        ])
        let allowlist = try connection.execute(
            "SELECT position, pattern, note FROM project_allowlist WHERE project_id = $1 ORDER BY position", [head[3]]
        ).map { row in
            HistoryRow(columns: [
                ("project_id", .integer(Int64(head[3] ?? "") ?? 0)), ("position", .integer(Int64(row[0] ?? "") ?? 0)),
                ("pattern", .text(row[1] ?? "")), ("note", row[2].map(RowValue.text) ?? .null),
            ])
        }
        return RecordingExtract(
            recording: recording, project: project, allowlist: allowlist,
            markers: try rows("SELECT row::text FROM markers WHERE recording_id = $1 ORDER BY local_id"),
            flows: try rows("SELECT row::text FROM flows WHERE recording_id = $1 ORDER BY local_id"),
            relays: try rows("SELECT relay::text FROM flows WHERE recording_id = $1 AND relay IS NOT NULL ORDER BY local_id"),
            requests: try rows(
                "SELECT r.value::text FROM flows, jsonb_array_elements(flows.requests) WITH ORDINALITY AS r(value, position) WHERE recording_id = $1 ORDER BY local_id, r.position"),
            historySchema: Int(head[2] ?? "") ?? 0)
    }
}
