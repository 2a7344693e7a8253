import Foundation
import TunnelVisionModel

/// The `flow_request` table: the requests the relay read inside a flow, one row each in the
/// order the phone sent them, written with the flow's relay facts and read back with the flow
/// itself (`FlowColumns.selectList`), so every reader of flows sees them through the one path.
enum RequestColumns {
    /// Replaces the flow's requests when the facts carry any (the relay's final report does; its
    /// earlier reports carry none, and must not wipe what a later one wrote). A path is stored
    /// only when the flow's recording was started to keep request paths: an untagged flow, or
    /// one of a recording that did not ask, keeps none.
    static func replace(_ facts: RelayFacts, flowID: Int64, in db: SQLiteConnection) throws {
        guard !facts.requests.isEmpty || facts.requestsNotKept > 0 else { return }
        let keepsPaths = try db.statement("""
            SELECT 1 FROM flows f JOIN audit_sessions s ON s.id = f.audit_session_id
            WHERE f.id = ? AND s.keep_request_paths = 1
            """).bind(.integer(flowID)).firstRow { _ in true } ?? false
        try db.statement("DELETE FROM flow_request WHERE flow_id = ?").bind(.integer(flowID)).run()
        try db.statement("UPDATE flow_relay SET requests_not_kept = ? WHERE flow_id = ?")
            .bind(.integer(Int64(facts.requestsNotKept)), .integer(flowID)).run()
        let insert = try db.statement("""
            INSERT INTO flow_request (flow_id, position, instant, version, method, authority, path, body_bytes, status, stream)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for (position, request) in facts.requests.enumerated() {
            insert.reset()
            _ = try insert.bind(
                .integer(flowID), .integer(Int64(position)), .instant(request.instant), .text(request.version.rawValue),
                .text(request.method), .optionalText(request.authority), .optionalText(keepsPaths ? request.path : nil),
                .integer(request.bodyBytes), .optionalInteger(request.responseStatus.map(Int64.init)),
                .optionalInteger(request.stream.map(Int64.init)))
            try insert.run()
        }
    }

    /// One column of `FlowColumns.selectList`: the flow's requests as one JSON array of rows (the
    /// instant as text, so that no JSON reader rounds its nanoseconds), then the count not kept.
    static let selectColumns = """
        , (SELECT json_group_array(json_array(position, CAST(instant AS TEXT), version, method, authority, path,
            body_bytes, status, stream)) FROM flow_request WHERE flow_id = flows.id)
        , (SELECT requests_not_kept FROM flow_relay WHERE flow_id = flows.id)
        """

    /// The requests of that column, in the order they were sent; a row this version cannot read
    /// (a version it does not know, written by a newer one) is left out rather than read as another.
    static func requests(fromJSON text: String?) -> [ReadRequest] {
        guard let text, text != "[]", let rows = try? JSONDecoder().decode([Cells].self, from: Data(text.utf8)) else { return [] }
        return rows.sorted { $0.position < $1.position }.compactMap(\.request)
    }

    private struct Cells: Decodable {
        let position: Int64
        let request: ReadRequest?

        init(from decoder: Decoder) throws {
            var cells = try decoder.unkeyedContainer()
            position = try cells.decode(Int64.self)
            let instant = Int64(try cells.decode(String.self))
            let version = ReadRequest.Version(rawValue: try cells.decode(String.self))
            let method = try cells.decode(String.self)
            let authority = try cells.decodeIfPresent(String.self), path = try cells.decodeIfPresent(String.self)
            let bodyBytes = try cells.decode(Int64.self)
            let status = try cells.decodeIfPresent(Int.self), stream = try cells.decodeIfPresent(UInt32.self)
            guard let instant, let version else {
                request = nil
                return
            }
            request = ReadRequest(
                instant: Instant(nanosecondsSinceEpoch: instant), version: version, method: method, authority: authority,
                path: path, bodyBytes: bodyBytes, responseStatus: status, stream: stream)
        }
    }
}
