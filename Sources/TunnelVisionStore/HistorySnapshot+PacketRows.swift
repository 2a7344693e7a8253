import Foundation
import TunnelVisionModel

/// One packet row as the history holds it: the packet, and the capture file its bytes are in
/// (0: kept as a row without bytes).
public struct StoredPacketRow: Sendable, Hashable {
    public let fileSequence: UInt32
    public let packet: SessionCapturedPacket
}

extension HistorySnapshot {
    /// Every packet row of one capture run's flows, captured or not, run by run: what the lab's
    /// checks count through tvwire (the bundle reads `capturedPackets`, one file at a time).
    public func packetRows(inCaptureRun id: Int64) throws -> [StoredPacketRow] {
        var rows: [StoredPacketRow] = []
        try forEachPacketRun("WHERE f.capture_run = ?", .integer(id)) { file, entries in
            rows += entries.map { StoredPacketRow(fileSequence: file, packet: $0) }
        }
        return rows
    }

    /// Each packet run of the flows the condition selects (over `packet_runs r JOIN flows f`),
    /// decoded into its packets, with the file the run's bytes are in.
    func forEachPacketRun(
        _ condition: String, _ values: SQLValue..., body: (UInt32, [SessionCapturedPacket]) throws -> Void
    ) throws {
        try db.statement("""
            SELECT r.rowid, r.flow_id, r.first_ts, r.first_offset, r.packets, r.entries, r.file_seq
            FROM packet_runs r JOIN flows f ON f.id = r.flow_id \(condition)
            """)
            .bind(values)
            .forEachRow { row in
                let flowID = row.int64(1)
                let entries: [SessionCapturedPacket]
                do {
                    entries = try row.withTextBytes(5) { text throws(PacketRuns.Unreadable) in
                        try PacketRuns.entries(
                            text, flowID: flowID, firstTimestamp: row.int64(2), firstOffset: row.int64(3),
                            count: Int(clamping: row.int64(4)))
                    }
                } catch let unreadable as PacketRuns.Unreadable {
                    throw HistoryError.unreadableRow(table: "packet_runs", id: row.int64(0), reason: unreadable.reason)
                }
                try body(UInt32(truncatingIfNeeded: row.int64(6)), entries)
            }
    }
}
