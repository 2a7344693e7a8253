import TunnelVisionModel

/// The `flow_relay` table: the relay's facts of a flow, one row per flow, replaced
/// as the relay learns more of the connection.
enum RelayFactsColumns {
    /// The key log is stored only when the flow's recording was started with --keep-keys: an
    /// untagged flow, or one of a recording that did not ask, keeps none.
    static func upsert(_ facts: RelayFacts, flowID: Int64, in db: SQLiteConnection) throws {
        try db.statement("""
            INSERT OR REPLACE INTO flow_relay (flow_id, decision, event, alert, reason, upstream_verified,
                upstream_verification, upstream_alpn, key_log, presented, server_name_sent)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, CASE WHEN EXISTS (
                SELECT 1 FROM flows f JOIN audit_sessions s ON s.id = f.audit_session_id WHERE f.id = ?1 AND s.keep_keys = 1)
                THEN ?9 ELSE '' END, ?10, ?11)
            """)
            .bind(
                .integer(flowID), .text(facts.decision.name), .optionalText(facts.event?.name),
                .optionalInteger(facts.alert.map(Int64.init)), .optionalText(facts.reason),
                facts.upstreamVerified.map(SQLValue.bool) ?? .null, .optionalText(facts.upstreamVerification),
                .optionalText(facts.upstreamApplicationProtocol), .text(facts.keyLog.map { $0 + "\n" }.joined()),
                .optionalText(facts.presented?.name), .optionalText(facts.serverNameAsSent))
            .run()
        try RequestColumns.replace(facts, flowID: flowID, in: db)
    }

    static let selectColumns = """
        r.flow_id, r.decision, r.event, r.alert, r.reason, r.upstream_verified, r.upstream_verification,
        r.upstream_alpn, r.key_log, r.presented, r.server_name_sent
        """

    /// Nil for a row whose decision, event or presentation this version does not know (written
    /// by a newer one): facts it cannot read are left out rather than read as others.
    static func read(_ row: Row) -> (flowID: Int64, facts: RelayFacts)? {
        guard let decision = RelayDecisionKind(name: row.text(1)) else { return nil }
        let event = row.textOrNil(2).map(RelayEventKind.init(name:)), presented = row.textOrNil(9).map(ShownLeafKind.init(name:))
        if case .some(nil) = event { return nil }
        if case .some(nil) = presented { return nil }
        return (flowID: row.int64(0), facts: RelayFacts(
            decision: decision, event: event ?? nil,
            alert: row.int64OrNil(3).flatMap(UInt8.init(exactly:)),
            reason: row.textOrNil(4), upstreamVerified: row.isNull(5) ? nil : row.bool(5),
            upstreamVerification: row.textOrNil(6), upstreamApplicationProtocol: row.textOrNil(7),
            keyLog: row.text(8).split(separator: "\n").map(String.init),
            presented: presented ?? nil, serverNameAsSent: row.textOrNil(10)))
    }
}

extension HistorySnapshot {
    /// The relay's facts of the flows tagged with an audit session, by flow.
    public func relayFacts(inRecording sessionID: Int64) throws -> [Int64: RelayFacts] {
        try relayFacts(where: "f.audit_session_id = ?", sessionID)
    }

    /// The relay's facts of the flows of one capture run, tagged or not, by flow.
    public func relayFacts(inCaptureRun id: Int64) throws -> [Int64: RelayFacts] {
        try relayFacts(where: "f.capture_run = ?", id)
    }

    private func relayFacts(where condition: String, _ value: Int64) throws -> [Int64: RelayFacts] {
        let rows = try db.statement("""
            SELECT \(RelayFactsColumns.selectColumns) FROM flow_relay r JOIN flows f ON f.id = r.flow_id
            WHERE \(condition) ORDER BY r.flow_id
            """).bind(.integer(value)).rows(RelayFactsColumns.read)
        return Dictionary(rows.compactMap { $0.map { ($0.flowID, $0.facts) } }, uniquingKeysWith: { _, last in last })
    }
}

extension History {
    public func relayFacts(inRecording sessionID: Int64) throws -> [Int64: RelayFacts] {
        try reading { try $0.relayFacts(inRecording: sessionID) }
    }
}
