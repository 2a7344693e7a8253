import Foundation
import TunnelVisionModel

/// Reads of the history. Each is also on `History`, where it is its own transaction.
extension HistorySnapshot {
    /// Oldest first (by first packet, then id).
    public func flows(inRecording id: Int64, limit: Int = .max) throws -> [StoredFlow] {
        try db.statement("""
            SELECT \(FlowColumns.selectList) FROM flows WHERE audit_session_id = ?
            ORDER BY first_seen, id LIMIT ?
            """)
            .bind(.integer(id), .integer(Int64(max(0, limit))))
            .rows(FlowColumns.flow)
    }

    /// Every flow of the recording, oldest first (by first packet, then id), handed over one at a
    /// time: what is held does not grow with the recording, as it does with `flows(inRecording:)`.
    public func forEachFlow(inRecording id: Int64, _ body: (StoredFlow) throws -> Void) throws {
        try db.statement(Self.recordingFlowsSQL).bind(.integer(id)).forEachRow { row in try body(FlowColumns.flow(from: row)) }
    }

    /// The recording's index (session, first packet) holds its rows in this order already: no sort.
    static let recordingFlowsSQL = """
        SELECT \(FlowColumns.selectList) FROM flows WHERE audit_session_id = ? ORDER BY first_seen, id
        """

    /// The newest `limit` flows (by first packet, then id), oldest first: a read bounded by `limit`.
    public func newestFlows(inRecording id: Int64, limit: Int) throws -> [StoredFlow] {
        try db.statement("""
            SELECT \(FlowColumns.selectList) FROM flows WHERE audit_session_id = ?
            ORDER BY first_seen DESC, id DESC LIMIT ?
            """)
            .bind(.integer(id), .integer(Int64(max(0, limit))))
            .rows(FlowColumns.flow)
            .reversed()
    }

    /// The session's flows inserted or updated after `marker`, and the marker to ask from next
    /// time. The read walks only the rows changed since, so its cost does not grow with the session:
    /// the unary + keeps the planner off the session's index, which would visit every flow of it.
    public func flowsChanged(inRecording id: Int64, after marker: FlowChangeMarker) throws -> (flows: [StoredFlow], next: FlowChangeMarker) {
        let rows = try db.statement(Self.flowsChangedSQL)
            .bind(.integer(marker.value), .integer(id))
            .rows { row in (row.int64(Int32(FlowColumns.all.count + 1)), FlowColumns.flow(from: row)) }
        // Rows of other sessions changed too: the next read starts after all of them.
        let newest = try flowChangeMarker().value
        return (rows.map(\.1), FlowChangeMarker(value: max(newest, rows.last?.0 ?? marker.value, marker.value)))
    }

    static let flowsChangedSQL = """
        SELECT \(FlowColumns.selectList), changed FROM flows WHERE changed > ?1 AND +audit_session_id = ?2
        ORDER BY changed
        """

    /// The marker of the history as it is now: a later `flowsChanged(after:)` gives what changed since.
    public func flowChangeMarker() throws -> FlowChangeMarker {
        FlowChangeMarker(value: try db.statement("SELECT IFNULL(MAX(changed), 0) FROM flows").firstRow { $0.int64(0) } ?? 0)
    }

    public func flowCount(inRecording id: Int64) throws -> Int {
        Int(try db.statement("SELECT COUNT(*) FROM flows WHERE audit_session_id = ?").bind(.integer(id)).firstRow { $0.int64(0) } ?? 0)
    }

    public func flows(inCaptureRun id: Int64) throws -> [StoredFlow] {
        try db.statement("SELECT \(FlowColumns.selectList) FROM flows WHERE capture_run = ? ORDER BY first_seen, id")
            .bind(.integer(id))
            .rows(FlowColumns.flow)
    }

    public func flow(id: Int64) throws -> StoredFlow? {
        try db.statement("SELECT \(FlowColumns.selectList) FROM flows WHERE id = ?").bind(.integer(id)).firstRow(FlowColumns.flow)
    }

    /// Per flow and per capture file (nil: never captured), how many packets the history holds.
    public func packetCounts(inRecording id: Int64) throws -> [SessionPacketCount] {
        try db.statement("""
            SELECT r.flow_id, NULLIF(r.file_seq, 0) AS file, SUM(r.packets)
            FROM packet_runs r JOIN flows f ON f.id = r.flow_id
            WHERE f.audit_session_id = ?
            GROUP BY r.flow_id, file ORDER BY r.flow_id, file
            """)
            .bind(.integer(id))
            .rows { row in
                SessionPacketCount(
                    flowID: row.int64(0), fileSequence: row.int64OrNil(1).map { UInt32(truncatingIfNeeded: $0) },
                    count: Int(row.int64(2)))
            }
    }

    /// The session's packets whose bytes are in one file, by ascending offset. Asked one file at
    /// a time, so what is held is bounded by a file, not by how long the session ran.
    public func capturedPackets(inRecording id: Int64, fileSequence: UInt32) throws -> [SessionCapturedPacket] {
        guard fileSequence != 0 else { return [] }
        var packets: [SessionCapturedPacket] = []
        try forEachPacketRun(
            "WHERE r.file_seq = ? AND f.audit_session_id = ?", .integer(Int64(fileSequence)), .integer(id)
        ) { _, entries in packets += entries.lazy.filter { $0.fileOffset != 0 } }
        // Runs interleave in a file (one per flow and batch): the copy wants one ascending pass.
        packets.sort { ($0.fileOffset, $0.flowID, $0.timestampNanoseconds) < ($1.fileOffset, $1.flowID, $1.timestampNanoseconds) }
        return packets
    }

    /// The files the session's packets point at: a file carries no session of its own.
    public func captureFileSequences(inRecording id: Int64) throws -> Set<UInt32> {
        Set(try db.statement("""
            SELECT DISTINCT r.file_seq FROM packet_runs r JOIN flows f ON f.id = r.flow_id
            WHERE f.audit_session_id = ? AND r.file_seq <> 0
            """).bind(.integer(id)).rows { UInt32(truncatingIfNeeded: $0.int64(0)) })
    }

    /// The files that hold bytes of any session, in one query: what retention must keep.
    public func auditEvidenceFileSequences() throws -> Set<UInt32> {
        Set(try db.statement("""
            SELECT DISTINCT r.file_seq FROM packet_runs r JOIN flows f ON f.id = r.flow_id
            WHERE f.audit_session_id IS NOT NULL AND r.file_seq <> 0
            """).rows { UInt32(truncatingIfNeeded: $0.int64(0)) })
    }

    public func captureRuns() throws -> [CaptureRun] {
        try db.statement("""
            SELECT id, started_at, ended_at, tool_version, input, kernel_dropped, interface_dropped FROM capture_sessions ORDER BY id
            """).rows { row in
            let drops = row.isNull(5) ? nil : PassiveTapDrops(kernel: UInt64(clamping: row.int64(5)), interface: UInt64(clamping: row.int64(6)))
            return CaptureRun(id: row.int64(0), startedAt: row.instant(1), endedAt: row.instantOrNil(2), toolVersion: row.text(3),
                                  input: row.text(4), tapDrops: drops)
        }
    }

    /// The chain over the capture files, oldest link first.
    public func captureSeals() throws -> [CaptureSeal] {
        try db.statement("SELECT \(CaptureSeal.columns) FROM capture_seals ORDER BY position").rows(CaptureSeal.init(row:))
    }

    /// By sequence.
    public func captureFiles() throws -> [CaptureFile] {
        try db.statement("SELECT sequence, path, created_at, closed_at, bytes FROM capture_files ORDER BY sequence").rows { row in
            CaptureFile(
                sequence: UInt32(truncatingIfNeeded: row.int64(0)), path: row.text(1), createdAt: row.date(2),
                closedAt: row.dateOrNil(3), bytes: UInt64(clamping: row.int64(4)))
        }
    }
}

extension HistorySnapshot {
    /// Packets lost in every minute that overlaps `start...end`, by reason: a minute is the
    /// history's grain, so a loss in a session's first or last minute may predate or follow it.
    public func packetLosses(from start: Instant, to end: Instant) throws -> [PacketLossReason: UInt64] {
        let rows = try db.statement("""
            SELECT reason, SUM(packets) FROM packet_losses WHERE minute >= ? AND minute <= ? GROUP BY reason
            """)
            .bind(.integer(start.nanosecondsSinceEpoch.flooredToMinute), .integer(end.nanosecondsSinceEpoch))
            .rows { row -> (PacketLossReason, UInt64) in
                guard let reason = PacketLossReason(rawValue: row.int64(0)) else {
                    throw HistoryError.unreadableRow(table: "packet_losses", id: row.int64(0), reason: "unknown reason \(row.int64(0))")
                }
                return (reason, UInt64(clamping: row.int64(1)))
            }
        return Dictionary(rows, uniquingKeysWith: +)
    }

    /// The last tally the recorder wrote for a capture session; nil when none was written.
    public func tally(ofCaptureRun id: Int64) throws -> TapTally? {
        try db.statement("SELECT packets_handed, packets_accounted, counted_at FROM capture_sessions WHERE id = ? AND counted_at IS NOT NULL")
            .bind(.integer(id))
            .rows { TapTally(handed: UInt64(clamping: $0.int64(0)), accounted: UInt64(clamping: $0.int64(1)), at: $0.date(2)) }
            .first
    }
}

extension Int64 {
    /// The start of the minute a nanosecond instant falls in; the earliest instant when that
    /// minute began before an Int64 reaches (a range asked from the beginning of time).
    var flooredToMinute: Int64 {
        let minute: Int64 = 60_000_000_000
        let (start, overflow) = Instant.floorDivided(self, by: minute).quotient.multipliedReportingOverflow(by: minute)
        return overflow ? .min : start
    }
}

extension History {
    public func packetLosses(from start: Instant, to end: Instant) throws -> [PacketLossReason: UInt64] {
        try reading { try $0.packetLosses(from: start, to: end) }
    }

    public func flows(inRecording id: Int64, limit: Int = .max) throws -> [StoredFlow] {
        try reading { try $0.flows(inRecording: id, limit: limit) }
    }

    public func flowChangeMarker() throws -> FlowChangeMarker {
        try reading { try $0.flowChangeMarker() }
    }

    public func newestFlows(inRecording id: Int64, limit: Int) throws -> [StoredFlow] {
        try reading { try $0.newestFlows(inRecording: id, limit: limit) }
    }

    public func flowCount(inRecording id: Int64) throws -> Int {
        try reading { try $0.flowCount(inRecording: id) }
    }

    public func flows(inCaptureRun id: Int64) throws -> [StoredFlow] {
        try reading { try $0.flows(inCaptureRun: id) }
    }

    public func flow(id: Int64) throws -> StoredFlow? {
        try reading { try $0.flow(id: id) }
    }

    public func packetCounts(inRecording id: Int64) throws -> [SessionPacketCount] {
        try reading { try $0.packetCounts(inRecording: id) }
    }

    public func capturedPackets(inRecording id: Int64, fileSequence: UInt32) throws -> [SessionCapturedPacket] {
        try reading { try $0.capturedPackets(inRecording: id, fileSequence: fileSequence) }
    }

    public func captureFileSequences(inRecording id: Int64) throws -> Set<UInt32> {
        try reading { try $0.captureFileSequences(inRecording: id) }
    }

    public func auditEvidenceFileSequences() throws -> Set<UInt32> {
        try reading { try $0.auditEvidenceFileSequences() }
    }

    public func captureFiles() throws -> [CaptureFile] {
        try reading { try $0.captureFiles() }
    }

    public func captureSeals() throws -> [CaptureSeal] {
        try reading { try $0.captureSeals() }
    }
}
