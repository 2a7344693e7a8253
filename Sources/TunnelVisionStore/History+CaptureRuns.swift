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
            // Prepared once per batch: looking a statement up by its text hashes the whole SQL.
            let update = try db.statement(FlowColumns.updateSQL)
            let insert = try db.statement(FlowColumns.insertSQL)
            let tagged = FlowColumns.all.count + 2
            for upsert in batch.flows {
                // An update never writes the 5-tuple: its addresses are not spelt out again.
                let statement = upsert.rowID == nil ? insert : update
                statement.reset()
                try statement.bind(upsert.rowID ?? captureRun, at: 1)
                try statement.bind(FlowColumns.values(of: upsert.state, withKey: upsert.rowID == nil), from: 2)
                try statement.bind(FlowColumns.taggingValues(upsert, tagging), from: Int32(tagged))
                try statement.run()
                rows[upsert.handle] = upsert.rowID ?? db.lastInsertedRowID
            }
            // One row per flow and capture file of the batch, not one per packet.
            let insertRun = try db.statement(PacketRuns.insertSQL)
            for run in try PacketRuns.runs(of: batch.packets, rows: rows) {
                insertRun.reset()
                try insertRun.bind(run.key.flowID, at: 1)
                try insertRun.bind(Int64(run.key.fileSequence), at: 2)
                try insertRun.bind(run.firstTimestamp, at: 3)
                try insertRun.bind(run.firstOffset, at: 4)
                try insertRun.bind(Int64(run.count), at: 5)
                try insertRun.bindText(run.text, at: 6)
                try insertRun.run()
            }
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
