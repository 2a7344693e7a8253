import Foundation
import TunnelVisionModel

/// What the daemon tells tvctl through the database: its settings and a heartbeat.
extension History {
    /// Replaces the daemon's settings with these, as of the instant.
    public func saveDaemonSettings(_ settings: DaemonSettings, at date: Date) throws {
        try write { db in
            try db.execute("DELETE FROM daemon_settings")
            for (key, value) in settings.pairs.sorted(by: { $0.key < $1.key }) {
                try db.statement("INSERT INTO daemon_settings (key, value, updated_at) VALUES (?, ?, ?)")
                    .bind(.text(key), .text(value), .date(date))
                    .run()
            }
        }
    }

    /// Empty settings when the daemon never wrote any.
    public func daemonSettings() throws -> DaemonSettings {
        try access { db in
            let pairs = try db.statement("SELECT key, value FROM daemon_settings").rows { ($0.text(0), $0.text(1)) }
            return DaemonSettings(pairs: Dictionary(pairs, uniquingKeysWith: { _, last in last }))
        }
    }

    public func recordHeartbeat(_ beat: DaemonHeartbeat) throws {
        try write { db in
            try db.statement("""
                INSERT OR REPLACE INTO daemon_heartbeat (id, at, pid, capture_session, input, packets_seen, bytes_seen,
                    packets_recorded, packets_not_captured, packets_dropped, queue_depth, capture_bytes,
                    relay_connections, relay_refused_at_ceiling, relay_reports_unmatched)
                VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
                .bind(
                    .date(beat.at), .integer(Int64(beat.pid)), .optionalInteger(beat.captureRunID), .text(beat.input),
                    .integer(Int64(clamping: beat.packetsSeen)), .integer(Int64(clamping: beat.bytesSeen)),
                    .integer(Int64(clamping: beat.packetsRecorded)), .integer(Int64(clamping: beat.packetsNotCaptured)),
                    .integer(Int64(clamping: beat.packetsDropped)), .integer(Int64(beat.queueDepth)),
                    .integer(Int64(clamping: beat.captureBytes)),
                    .optionalInteger(beat.relayConnections.map(Int64.init)),
                    .optionalInteger(beat.relayRefusedAtCeiling.map { Int64(clamping: $0) }),
                    .optionalInteger(beat.relayReportsUnmatched.map { Int64(clamping: $0) }))
                .run()
        }
    }

    public func latestHeartbeat() throws -> DaemonHeartbeat? {
        try access { db in
            try db.statement("""
                SELECT at, pid, capture_session, input, packets_seen, bytes_seen, packets_recorded, packets_not_captured,
                    packets_dropped, queue_depth, capture_bytes, relay_connections, relay_refused_at_ceiling,
                    relay_reports_unmatched FROM daemon_heartbeat WHERE id = 1
                """).firstRow { row in
                var beat = DaemonHeartbeat(
                    at: row.date(0), pid: Int32(truncatingIfNeeded: row.int64(1)), captureRunID: row.int64OrNil(2),
                    input: row.text(3), packetsSeen: UInt64(clamping: row.int64(4)), bytesSeen: UInt64(clamping: row.int64(5)),
                    packetsRecorded: UInt64(clamping: row.int64(6)), packetsNotCaptured: UInt64(clamping: row.int64(7)),
                    packetsDropped: UInt64(clamping: row.int64(8)), queueDepth: Int(row.int64(9)),
                    captureBytes: UInt64(clamping: row.int64(10)))
                beat.relayConnections = row.int64OrNil(11).map { Int(clamping: $0) }
                beat.relayRefusedAtCeiling = row.int64OrNil(12).map { UInt64(clamping: $0) }
                beat.relayReportsUnmatched = row.int64OrNil(13).map { UInt64(clamping: $0) }
                return beat
            }
        }
    }
}
