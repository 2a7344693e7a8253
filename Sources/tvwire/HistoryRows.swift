import Foundation
import TunnelVisionModel
import TunnelVisionStore

/// What only a developer reads from a history, for the lab's checks: the capture runs, every
/// packet row and the packets lost, each through the store's own readers, so that the schema is
/// no second interface of the checks. Instants are nanoseconds since 1970, as the wire has them.
enum HistoryRows {
    struct Run: Encodable {
        struct Drops: Encodable { let kernel: UInt64, interface: UInt64 }
        let id: Int64
        let input: String
        let endedAt: Int64?
        /// libpcap's counts of a passive tap's run.
        let tapDrops: Drops?
        /// Whether the daemon's heartbeat names this run as the one it captures.
        let inHeartbeat: Bool
    }

    struct Packet: Encodable {
        let captureRun: Int64
        let flowID: Int64
        let timestamp: Int64
        let direction: String
        let fileSequence: UInt32
        let fileOffset: UInt64
    }

    static func captureRuns(databasePath: String) throws -> Data {
        let store = try History(path: databasePath)
        let beating = try store.latestHeartbeat()?.captureRunID
        return try encoded(try store.captureRuns().map { run in
            Run(
                id: run.id, input: run.input, endedAt: run.endedAt?.nanosecondsSinceEpoch,
                tapDrops: run.tapDrops.map { Run.Drops(kernel: $0.kernel, interface: $0.interface) }, inHeartbeat: run.id == beating)
        })
    }

    static func packets(databasePath: String) throws -> Data {
        let store = try History(path: databasePath)
        let rows = try store.reading { snapshot in
            try snapshot.captureRuns().flatMap { run in
                try snapshot.packetRows(inCaptureRun: run.id).map { row in
                    Packet(
                        captureRun: run.id, flowID: row.packet.flowID, timestamp: row.packet.timestampNanoseconds,
                        direction: row.packet.direction == .outbound ? "outbound" : "inbound", fileSequence: row.fileSequence,
                        fileOffset: row.packet.fileOffset)
                }
            }
        }
        return try encoded(rows)
    }

    /// Every reason by name, with the packets the history counts for it (0 where none).
    static func losses(databasePath: String) throws -> Data {
        // From 1970: the reader floors its start to a minute, which the earliest instant has not.
        let counted = try History(path: databasePath).packetLosses(from: Instant(nanosecondsSinceEpoch: 0), to: Instant(nanosecondsSinceEpoch: .max))
        return try encoded(Dictionary(uniqueKeysWithValues: PacketLossReason.allCases.map { ($0.name, counted[$0] ?? 0) }))
    }

    private static func encoded(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(value) + Data("\n".utf8)
    }
}
