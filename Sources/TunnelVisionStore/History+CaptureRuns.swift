import Foundation
import TunnelVisionModel

/// What the capture daemon writes: capture runs, flows with their packets, DNS answers.
extension History {
    /// One per daemon start (or offline import): the scope within which a 5-tuple is one flow.
    public func beginCaptureRun(toolVersion: String, input: String, at date: Date) throws -> CaptureRun {
        try write { db in
            try db.statement("INSERT INTO capture_sessions (started_at, ended_at, tool_version, input) VALUES (?, NULL, ?, ?)")
                .bind(.date(date), .text(toolVersion), .text(input))
                .run()
            return CaptureRun(id: db.lastInsertedRowID, startedAt: Instant(date), endedAt: nil, toolVersion: toolVersion, input: input)
        }
    }

    /// Adds packets the tap saw and the history never got to the minute `date` falls in.
    public func recordPacketLoss(_ packets: UInt64, reason: PacketLossReason, captureRun: Int64, at date: Date) throws {
        guard packets > 0 else { return }
        try write { db in try Self.addPacketLoss(packets, reason: reason, captureRun: captureRun, at: date, in: db) }
    }

    /// In one transaction: the losses counted since the last tally, at its minute, and the tally
    /// that accounts for them — so that a crash between the two can never count them twice.
    public func recordTally(_ tally: TapTally, losses: [PacketLossReason: UInt64], captureRun: Int64) throws {
        try write { db in
            for (reason, packets) in losses.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where packets > 0 {
                try Self.addPacketLoss(packets, reason: reason, captureRun: captureRun, at: tally.at, in: db)
            }
            try Self.saveTally(tally, captureRun: captureRun, in: db)
        }
    }

    /// The passive tap's drop counts so far: libpcap's totals since the tap opened.
    public func recordTapDrops(_ drops: PassiveTapDrops, captureRun: Int64) throws {
        try write { db in
            try db.statement("UPDATE capture_sessions SET kernel_dropped = ?, interface_dropped = ? WHERE id = ?")
                .bind(.integer(Int64(clamping: drops.kernel)), .integer(Int64(clamping: drops.interface)), .integer(captureRun))
                .run()
        }
    }

    private static func addPacketLoss(
        _ packets: UInt64, reason: PacketLossReason, captureRun: Int64, at date: Date, in db: SQLiteConnection
    ) throws {
        try db.statement("""
            INSERT INTO packet_losses (capture_session, minute, reason, packets) VALUES (?, ?, ?, ?)
            ON CONFLICT (capture_session, minute, reason) DO UPDATE SET packets = packets + excluded.packets
            """)
            .bind(.integer(captureRun), .integer(date.nanosecondsSinceEpoch.flooredToMinute), .integer(reason.rawValue),
                  .integer(Int64(clamping: packets)))
            .run()
    }

    private static func saveTally(_ tally: TapTally, captureRun: Int64, in db: SQLiteConnection) throws {
        try db.statement("UPDATE capture_sessions SET packets_handed = ?, packets_accounted = ?, counted_at = ? WHERE id = ?")
            .bind(.integer(Int64(clamping: tally.handed)), .integer(Int64(clamping: tally.accounted)), .date(tally.at),
                  .integer(captureRun))
            .run()
    }

    /// The last tally of a capture session; nil when none was written.
    public func tally(ofCaptureRun id: Int64) throws -> TapTally? {
        try reading { try $0.tally(ofCaptureRun: id) }
    }

    public func endCaptureRun(id: Int64, at date: Date) throws {
        try write { db in
            try db.statement("UPDATE capture_sessions SET ended_at = ? WHERE id = ? AND ended_at IS NULL")
                .bind(.date(date), .integer(id))
                .run()
        }
    }

    /// After a crash: every capture session still open is closed at its last packet (or its
    /// start, when it recorded none), and what its last tally left unaccounted is counted as lost
    /// (`daemonStopped`) at the tally's minute, in the same transaction. Returns the ids it closed.
    @discardableResult
    public func closeInterruptedCaptureRuns() throws -> [Int64] {
        try write { db in
            let open = try db.statement("""
                SELECT id, packets_handed - packets_accounted, counted_at FROM capture_sessions WHERE ended_at IS NULL
                """).rows { ($0.int64(0), $0.isNull(2) ? 0 : $0.int64(1), $0.isNull(2) ? nil : $0.int64(2)) }
            for (id, unaccounted, countedAt) in open {
                if let countedAt, unaccounted > 0 {
                    try Self.addPacketLoss(UInt64(unaccounted), reason: .daemonStopped, captureRun: id,
                                           at: Date(nanosecondsSinceEpoch: countedAt), in: db)
                }
                try db.statement("""
                    UPDATE capture_sessions SET ended_at = MAX(started_at,
                        COALESCE((SELECT MAX(last_seen) FROM flows WHERE capture_run = ?1), started_at))
                    WHERE id = ?1
                    """).bind(.integer(id)).run()
            }
            return open.map(\.0)
        }
    }

    public func captureRuns() throws -> [CaptureRun] {
        try reading { try $0.captureRuns() }
    }

    /// A batch that breaks its own contract: a programming error of the writer, not of the user.
    public enum BatchError: Error, Sendable, Hashable {
        case packetOfUnlistedFlow(FlowHandle)
    }

    /// Writes one batch in one transaction: flows first (inserted or updated, each tagged with
    /// the recording open at that moment for the phone at its client end), then their packets
    /// (as runs, `PacketRuns`) and DNS answers. Returns the rows given to flows that had none.
    /// With `tally`, the capture session's tally is written in the same transaction.
    @discardableResult
    public func write(
        _ batch: HistoryBatch, captureRun: Int64, tagging: RecordingTagging = .openRecordings, tally: TapTally? = nil
    ) throws -> [FlowHandle: Int64] {
        guard !batch.isEmpty || tally != nil else { return [:] }
        return try write { db in
            var rows: [FlowHandle: Int64] = [:]
            // New rows go in sixteen to a statement, with the ids SQLite would give them one by one.
            var inserts = try ChunkedInsert(FlowColumns.insertPrefix, width: FlowColumns.insertWidth, db: db)
            var nextID = try db.statement("SELECT IFNULL(MAX(id), 0) + 1 FROM flows").firstRow { $0.int64(0) } ?? 1
            // An update sets only the columns it may change: one statement per such set.
            var updates: [UInt64: Statement] = [:]
            let tags = try RecordingTags(tagging, db: db)
            var markers = try FlowChangeMarkers(db: db)
            var texts = FlowTexts()
            for upsert in batch.flows {
                // An update never writes the 5-tuple: its addresses are not spelt out again.
                let values = FlowColumns.values(of: upsert.state, withKey: upsert.rowID == nil, texts: &texts)
                let tag = tags.recording(client: upsert.client, texts: &texts), change = markers.next()
                guard let rowID = upsert.rowID else {
                    try inserts.add(FlowColumns.insertRow(id: nextID, captureRun: captureRun, values: values, tag: tag, change: change))
                    rows[upsert.handle] = nextID
                    nextID += 1
                    continue
                }
                let unchanged = FlowColumns.unchanged(by: values)
                let statement: Statement
                if let known = updates[unchanged] {
                    statement = known
                } else {
                    statement = try db.statement(FlowColumns.updateSQL(leavingOut: unchanged))
                    updates[unchanged] = statement
                }
                statement.reset()
                try statement.bind(rowID, at: 1)
                try statement.bind(values, from: 2)
                try statement.bind(.optionalInteger(tag), .integer(change), from: Int32(FlowColumns.tagParameter))
                try statement.run()
                rows[upsert.handle] = rowID
            }
            try inserts.finish()
            // One row per flow and capture file of the batch, not one per packet.
            var runRows = try ChunkedInsert(PacketRuns.insertPrefix, width: 6, db: db)
            var runs = try PacketRuns.runs(of: batch.packets, rows: rows)
            for index in runs.indices {
                // Closed in place: the run's entries are the array's only copy.
                let text = runs[index].close()
                let run = runs[index]
                try runRows.add([.integer(run.key.flowID), .integer(Int64(run.key.fileSequence)), .integer(run.firstTimestamp),
                                 .integer(run.firstOffset), .integer(Int64(run.count)), .utf8(text)])
            }
            try runRows.finish()
            for answer in batch.dnsAnswers {
                try db.statement("INSERT INTO dns_answers (ts, query_name, address, ttl, flow_id) VALUES (?, ?, ?, ?, ?)")
                    .bind(
                        .integer(answer.timestampNanoseconds), .text(answer.queryName), .text(answer.address.description),
                        .integer(Int64(answer.ttl)), .optionalInteger(rows[answer.flow]))
                    .run()
            }
            for record in batch.relayFacts {
                guard let flowID = rows[record.flow] else { throw BatchError.packetOfUnlistedFlow(record.flow) }
                try RelayFactsColumns.upsert(record.facts, flowID: flowID, in: db)
            }
            if let tally { try Self.saveTally(tally, captureRun: captureRun, in: db) }
            return rows
        }
    }
}
