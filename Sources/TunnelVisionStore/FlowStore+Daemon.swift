import Foundation
import TunnelVisionModel

/// What the daemon tells tvctl through the database: its settings and a heartbeat.
public struct DaemonHeartbeat: Sendable, Hashable {
    public var at: Date
    public var pid: Int32
    public var captureSessionID: Int64?
    public var input: String
    public var packetsSeen: UInt64
    public var bytesSeen: UInt64
    public var packetsRecorded: UInt64
    /// Recorded without bytes: capture off, or the capture file could not be written.
    public var packetsNotCaptured: UInt64
    /// Forwarded but not recorded at all: the recording queue was full.
    public var packetsDropped: UInt64
    public var queueDepth: Int
    /// Bytes held by the capture directory's files.
    public var captureBytes: UInt64

    public init(
        at: Date, pid: Int32, captureSessionID: Int64?, input: String, packetsSeen: UInt64 = 0, bytesSeen: UInt64 = 0,
        packetsRecorded: UInt64 = 0, packetsNotCaptured: UInt64 = 0, packetsDropped: UInt64 = 0, queueDepth: Int = 0,
        captureBytes: UInt64 = 0
    ) {
        self.at = at
        self.pid = pid
        self.captureSessionID = captureSessionID
        self.input = input
        self.packetsSeen = packetsSeen
        self.bytesSeen = bytesSeen
        self.packetsRecorded = packetsRecorded
        self.packetsNotCaptured = packetsNotCaptured
        self.packetsDropped = packetsDropped
        self.queueDepth = queueDepth
        self.captureBytes = captureBytes
    }
}

extension FlowStore {
    /// Replaces the daemon's settings with these (key = value), as of the instant.
    public func saveDaemonSettings(_ settings: [String: String], at date: Date) throws {
        try write { db in
            try db.execute("DELETE FROM daemon_settings")
            for (key, value) in settings.sorted(by: { $0.key < $1.key }) {
                try db.statement("INSERT INTO daemon_settings (key, value, updated_at) VALUES (?, ?, ?)")
                    .bind(.text(key), .text(value), .date(date))
                    .run()
            }
        }
    }

    public func daemonSettings() throws -> [String: String] {
        try access { db in
            let pairs = try db.statement("SELECT key, value FROM daemon_settings").rows { ($0.text(0), $0.text(1)) }
            return Dictionary(pairs, uniquingKeysWith: { _, last in last })
        }
    }

    public func recordHeartbeat(_ beat: DaemonHeartbeat) throws {
        try write { db in
            try db.statement("""
                INSERT OR REPLACE INTO daemon_heartbeat (id, at, pid, capture_session, input, packets_seen, bytes_seen,
                    packets_recorded, packets_not_captured, packets_dropped, queue_depth, capture_bytes)
                VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
                .bind(
                    .date(beat.at), .integer(Int64(beat.pid)), .optionalInteger(beat.captureSessionID), .text(beat.input),
                    .integer(Int64(clamping: beat.packetsSeen)), .integer(Int64(clamping: beat.bytesSeen)),
                    .integer(Int64(clamping: beat.packetsRecorded)), .integer(Int64(clamping: beat.packetsNotCaptured)),
                    .integer(Int64(clamping: beat.packetsDropped)), .integer(Int64(beat.queueDepth)),
                    .integer(Int64(clamping: beat.captureBytes)))
                .run()
        }
    }

    public func latestHeartbeat() throws -> DaemonHeartbeat? {
        try access { db in
            try db.statement("""
                SELECT at, pid, capture_session, input, packets_seen, bytes_seen, packets_recorded, packets_not_captured,
                    packets_dropped, queue_depth, capture_bytes FROM daemon_heartbeat WHERE id = 1
                """).firstRow { row in
                DaemonHeartbeat(
                    at: row.date(0), pid: Int32(truncatingIfNeeded: row.int64(1)), captureSessionID: row.int64OrNil(2),
                    input: row.text(3), packetsSeen: UInt64(clamping: row.int64(4)), bytesSeen: UInt64(clamping: row.int64(5)),
                    packetsRecorded: UInt64(clamping: row.int64(6)), packetsNotCaptured: UInt64(clamping: row.int64(7)),
                    packetsDropped: UInt64(clamping: row.int64(8)), queueDepth: Int(row.int64(9)),
                    captureBytes: UInt64(clamping: row.int64(10)))
            }
        }
    }
}
