import Foundation
import TunnelVisionModel

/// The packets of an ended recording's flows that came after its end. A flow tagged while the
/// recording was open goes on collecting packets; its bundle holds it only up to the end, so
/// that the evidence of an ended recording is the same whenever it is exported.
public struct LaterPackets: Sendable, Hashable {
    /// What came after the end on one flow, and its last packet up to the end.
    public struct Flow: Sendable, Hashable {
        public let count: Int
        public let bytesOut: UInt64
        public let bytesIn: UInt64
        public let lastUntilEnd: Instant?
    }

    public let end: Instant
    public let flows: [Int64: Flow]
    /// The same packets by flow and file (no file: rows without bytes).
    public let perFile: [SessionPacketCount]

    public var count: Int { flows.values.reduce(0) { $0 + $1.count } }

    /// The flow as it stood at the end: its counts less what came later, its last packet the
    /// last one up to the end.
    public func cut(_ flow: StoredFlow) -> StoredFlow {
        guard let later = flows[flow.id] else { return flow }
        var cut = flow
        let less = { (total: UInt64, part: UInt64) in total > part ? total - part : 0 }
        cut.state.packetCount = less(flow.packetCount, UInt64(later.count))
        cut.state.bytesOut = less(flow.bytesOut, later.bytesOut)
        cut.state.bytesIn = less(flow.bytesIn, later.bytesIn)
        cut.state.lastSeen = max(later.lastUntilEnd ?? flow.firstSeen, flow.firstSeen)
        return cut
    }
}

extension HistorySnapshot {
    /// The packets of the recording's flows stamped after `end`. Only the runs of flows last seen
    /// after it are unpacked. The runs are unpacked here, not through the `packets` view: with
    /// `trusted_schema` off, SQLite refuses the JSON functions inside a view of the schema.
    public func packets(after end: Instant, inRecording id: Int64) throws -> LaterPackets {
        let rows = try db.statement("""
            WITH p AS (
                SELECT r.flow_id AS flow_id, r.file_seq AS file_seq, r.first_ts + json_extract(e.value, '$[0]') AS ts,
                    json_extract(e.value, '$[1]') AS direction, json_extract(e.value, '$[2]') AS wire_length
                FROM flows f JOIN packet_runs r ON r.flow_id = f.id, json_each(r.entries) e
                WHERE f.audit_session_id = ?1 AND f.last_seen > ?2
            )
            SELECT p.flow_id, NULLIF(p.file_seq, 0) AS file, SUM(p.ts > ?2),
                SUM(CASE WHEN p.ts > ?2 AND p.direction = 0 THEN p.wire_length ELSE 0 END),
                SUM(CASE WHEN p.ts > ?2 AND p.direction = 1 THEN p.wire_length ELSE 0 END),
                MAX(CASE WHEN p.ts <= ?2 THEN p.ts END)
            FROM p
            GROUP BY p.flow_id, file ORDER BY p.flow_id, file
            """)
            .bind(.integer(id), .instant(end))
            .rows { row in
                (flowID: row.int64(0), file: row.int64OrNil(1).map { UInt32(truncatingIfNeeded: $0) }, count: Int(row.int64(2)),
                 bytesOut: UInt64(clamping: row.int64(3)), bytesIn: UInt64(clamping: row.int64(4)), last: row.instantOrNil(5))
            }
        var flows: [Int64: LaterPackets.Flow] = [:]
        for row in rows {
            let before = flows[row.flowID]
            let last = [before?.lastUntilEnd, row.last].compactMap { $0 }.max()
            flows[row.flowID] = LaterPackets.Flow(
                count: (before?.count ?? 0) + row.count, bytesOut: (before?.bytesOut ?? 0) + row.bytesOut,
                bytesIn: (before?.bytesIn ?? 0) + row.bytesIn, lastUntilEnd: last)
        }
        return LaterPackets(
            end: end, flows: flows.filter { $0.value.count > 0 },
            perFile: rows.filter { $0.count > 0 }.map { SessionPacketCount(flowID: $0.flowID, fileSequence: $0.file, count: $0.count) })
    }
}
