import EvidenceSeeding
import Foundation
import Testing
@testable import TunnelVisionExport
import TunnelVisionModel
@testable import TunnelVisionStore

/// A history written by the version before the packet index (one row per packet)
/// migrates to runs and reads — and exports — as it did.
struct PacketIndexMigrationTests {
    /// The previous version's reads, as it ran them against its `packets` table.
    static let previousPacketCountsSQL = """
        SELECT p.flow_id, CASE WHEN p.file_offset = 0 THEN NULL ELSE p.file_seq END AS file, COUNT(*)
        FROM packets p JOIN flows f ON f.id = p.flow_id
        WHERE f.audit_session_id = ?
        GROUP BY p.flow_id, file ORDER BY p.flow_id, file
        """
    static let previousCapturedPacketsSQL = """
        SELECT p.flow_id, p.ts, p.direction, p.wire_length, p.file_offset
        FROM packets p JOIN flows f ON f.id = p.flow_id
        WHERE f.audit_session_id = ? AND p.file_seq = ? AND p.file_offset <> 0
        ORDER BY p.file_offset
        """

    static var stepBefore: Int {
        get throws { try #require(Schema.migrations.firstIndex { $0.contains("CREATE TABLE packet_runs") }) }
    }

    /// The seed's history again, as the previous version wrote it: every table but the packet
    /// index copied over, and one `packets` row per packet, with that version's SQL.
    static func previousVersionHistory(of seed: EvidenceSeed, at path: String) throws -> History {
        let old = try History(path: path, migratingTo: try stepBefore)
        try old.access { db in
            try db.execute("ATTACH DATABASE '\(seed.databasePath)' AS today")
            let tables = try db.statement("""
                SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'packets'
                """).rows { $0.text(0) }
            try db.transaction(immediate: true) {
                // Tables come in the order they were made; flows name sessions made after them.
                try db.execute("PRAGMA defer_foreign_keys = ON")
                // Only the columns that version had: later steps add columns of their own.
                // A column a later step renamed is read under its name of today.
                let renamed = ["flows.session": "capture_run"]
                for table in tables {
                    let names = try db.statement("SELECT name FROM pragma_table_info('\(table)', 'main')").rows { $0.text(0) }
                    let columns = names.joined(separator: ", ")
                    let source = names.map { renamed["\(table).\($0)"] ?? $0 }.joined(separator: ", ")
                    try db.execute("INSERT INTO main.\(table) (\(columns)) SELECT \(source) FROM today.\(table)")
                }
                let insert = try db.statement(
                    "INSERT INTO packets (flow_id, ts, direction, wire_length, file_seq, file_offset) VALUES (?, ?, ?, ?, ?, ?)")
                for (flowID, packet) in seed.packets {
                    insert.reset()
                    try insert.bind(
                        .integer(flowID), .integer(packet.timestampNanoseconds), .integer(Int64(packet.direction.rawValue)),
                        .integer(Int64(packet.wireLength)), .integer(Int64(packet.location.fileSequence)),
                        .integer(Int64(packet.location.offset))
                    ).run()
                }
            }
            try db.execute("DETACH DATABASE today")
        }
        return old
    }

    struct Readings: Equatable {
        var counts: [SessionPacketCount] = []
        var captured: [UInt32: [SessionCapturedPacket]] = [:]
    }

    static func previousReadings(_ store: History, session: Int64, files: [UInt32]) throws -> Readings {
        try store.access { db in
            var readings = Readings()
            readings.counts = try db.statement(previousPacketCountsSQL).bind(.integer(session)).rows { row in
                SessionPacketCount(flowID: row.int64(0), fileSequence: row.int64OrNil(1).map { UInt32($0) }, count: Int(row.int64(2)))
            }
            for file in files {
                readings.captured[file] = try db.statement(previousCapturedPacketsSQL).bind(.integer(session), .integer(Int64(file))).rows { row in
                    SessionCapturedPacket(
                        flowID: row.int64(0), timestampNanoseconds: row.int64(1), direction: row.int64(2) == 0 ? .outbound : .inbound,
                        wireLength: UInt32(row.int64(3)), fileOffset: UInt64(row.int64(4)))
                }
            }
            return readings
        }
    }

    static func readings(_ store: History, session: Int64, files: [UInt32]) throws -> Readings {
        var readings = Readings(counts: try store.packetCounts(inRecording: session))
        for file in files { readings.captured[file] = try store.capturedPackets(inRecording: session, fileSequence: file) }
        return readings
    }

    /// flows.json and the digest of capture.pcapng of an export of the session.
    static func exported(_ store: History, seed: EvidenceSeed, into directory: URL) throws -> (flows: Data, capture: Substring) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let exporter = EvidenceExporter(history: store, captureDirectory: seed.captureDirectory, catalogues: EvidenceExporterTests.catalogues)
        let result = try exporter.export(sessionID: seed.sessionID, exportedWith: "tvctl 1.0.0-test", now: EvidenceExporterTests.now, output: directory)
        let unpacked = directory.appendingPathComponent("unpacked")
        _ = try ForeignTool.run("unzip", ["-q", result.url.path, "-d", unpacked.path])
        let folder = unpacked.appendingPathComponent(result.url.deletingPathExtension().lastPathComponent)
        let digest = try ForeignTool.run("sha256sum", [folder.appendingPathComponent("capture.pcapng").path]).prefix(64)
        return (try Data(contentsOf: folder.appendingPathComponent("flows.json")), digest)
    }

    @Test func aHistoryOfOneRowPerPacketReadsTheSameOnceMigrated() throws {
        let scratch = try ScratchDirectory()
        let seed = try EvidenceSeed.make(
            in: scratch.url.appendingPathComponent("seed"), plan: .init(uncapturedEvery: 4, packetsOutsideSession: true))
        let files = try History(path: seed.databasePath).captureFiles().map(\.sequence)
        #expect(files.count > 3, "the seed spreads its packets over several capture files")
        let path = scratch.url.appendingPathComponent("previous.sqlite").path
        let old = try Self.previousVersionHistory(of: seed, at: path)
        let before = try Self.previousReadings(old, session: seed.sessionID, files: files)
        #expect(before.counts.contains { $0.fileSequence == nil }, "some packets were never captured")
        #expect(before.captured.values.reduce(0) { $0 + $1.count } == seed.packets.filter { $0.packet.location.isCaptured }.count)

        let migrated = try History(path: path)
        #expect(try migrated.schemaVersion == History.currentSchemaVersion)
        #expect(try Self.readings(migrated, session: seed.sessionID, files: files) == before)
        #expect(try migrated.captureFileSequences(inRecording: seed.sessionID) == Set(files))
        // sqlite3 as an independent reading: the view still has every row of before.
        let viewRows = try ForeignTool.run("sqlite3", [path, "SELECT COUNT(*), SUM(file_seq = 0) FROM packets"])
        #expect(viewRows == "\(seed.packets.count)|\(seed.packets.filter { !$0.packet.location.isCaptured }.count)\n")
    }

    @Test func aMigratedHistoryExportsTheSameFlowsAndCaptureAsOneWrittenToday() throws {
        let scratch = try ScratchDirectory()
        let seed = try EvidenceSeed.make(
            in: scratch.url.appendingPathComponent("seed"), plan: .init(uncapturedEvery: 4, packetsOutsideSession: true))
        let path = scratch.url.appendingPathComponent("previous.sqlite").path
        _ = try Self.previousVersionHistory(of: seed, at: path)
        let today = try Self.exported(try History(path: seed.databasePath), seed: seed, into: scratch.url.appendingPathComponent("today"))
        let migrated = try Self.exported(try History(path: path), seed: seed, into: scratch.url.appendingPathComponent("migrated"))
        #expect(migrated.flows == today.flows)
        #expect(migrated.capture == today.capture)
        #expect(today.flows.count > 1000)
    }
}
