import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionStore

/// The packet index as runs, one row per flow and capture file in a batch.
@Suite struct PacketRunTests {
    func packet(_ flow: FlowHandle, at instant: Int64, file: UInt32, offset: UInt64, _ direction: Direction = .outbound,
                length: UInt32 = 100) -> PacketRecord {
        PacketRecord(flow: flow, timestampNanoseconds: instant, direction: direction, wireLength: length,
                     location: CaptureLocation(fileSequence: file, offset: offset))
    }

    func rowCount(_ store: History, _ table: String) throws -> Int64 {
        try store.access { db in try db.statement("SELECT COUNT(*) FROM \(table)").firstRow { $0.int64(0) } ?? -1 }
    }

    @Test func aBatchWritesOneRunPerFlowAndFileAndTheViewGivesEveryPacketBack() throws {
        let db = TemporaryDatabase()
        let store = try db.open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        let capture = try store.beginCaptureRun(toolVersion: "t", input: "i", at: at(0))
        let session = try store.startRecording(sessionDraft(project: project.id), at: at(1))
        let flows = [1, 2].map { FlowUpsert(handle: $0, rowID: nil, state: udpFlow(port: UInt16($0), at: at(2))) }
        let base = at(2).nanosecondsSinceEpoch
        let packets = [
            packet(1, at: base, file: 7, offset: 24), packet(2, at: base + 5, file: 7, offset: 140, .inbound, length: 1500),
            packet(1, at: base + 9, file: 7, offset: 1664), packet(1, at: base + 11, file: 0, offset: 0, .inbound),
            packet(1, at: base + 12, file: 8, offset: 24), packet(2, at: base + 3, file: 8, offset: 140),
        ]
        let rows = try store.write(HistoryBatch(flows: flows, packets: packets), captureRun: capture.id)
        #expect(try rowCount(store, "packet_runs") == 5)
        // A second batch of the same flow and file is a run of its own, read back in offset order.
        let later = HistoryBatch(flows: [FlowUpsert(handle: 1, rowID: rows[1], state: udpFlow(port: 1, at: at(2)))],
                                 packets: [packet(1, at: base + 20, file: 7, offset: 1788)])
        try store.write(later, captureRun: capture.id)
        #expect(try rowCount(store, "packet_runs") == 6)

        let inSeven = try store.capturedPackets(inRecording: session.id, fileSequence: 7)
        #expect(inSeven == [
            SessionCapturedPacket(flowID: rows[1]!, timestampNanoseconds: base, direction: .outbound, wireLength: 100, fileOffset: 24),
            SessionCapturedPacket(flowID: rows[2]!, timestampNanoseconds: base + 5, direction: .inbound, wireLength: 1500, fileOffset: 140),
            SessionCapturedPacket(flowID: rows[1]!, timestampNanoseconds: base + 9, direction: .outbound, wireLength: 100, fileOffset: 1664),
            SessionCapturedPacket(flowID: rows[1]!, timestampNanoseconds: base + 20, direction: .outbound, wireLength: 100, fileOffset: 1788),
        ])
        // A timestamp earlier than its run's first one is told as a negative difference.
        #expect(try store.capturedPackets(inRecording: session.id, fileSequence: 8).map(\.timestampNanoseconds) == [base + 12, base + 3])
        #expect(Set(try store.packetCounts(inRecording: session.id)) == [
            SessionPacketCount(flowID: rows[1]!, fileSequence: nil, count: 1), SessionPacketCount(flowID: rows[1]!, fileSequence: 7, count: 3),
            SessionPacketCount(flowID: rows[1]!, fileSequence: 8, count: 1), SessionPacketCount(flowID: rows[2]!, fileSequence: 7, count: 1),
            SessionPacketCount(flowID: rows[2]!, fileSequence: 8, count: 1),
        ])
        // sqlite3 reads the view as the table it replaced: every packet with its columns.
        let view = try PhoneMigrationTests.sqlite3(db.path, """
            SELECT flow_id, ts - \(base), direction, wire_length, file_seq, file_offset FROM packets ORDER BY file_seq, file_offset, ts
            """)
        let one = rows[1]!, two = rows[2]!
        #expect(view == """
            \(one)|11|1|100|0|0
            \(one)|0|0|100|7|24
            \(two)|5|1|1500|7|140
            \(one)|9|0|100|7|1664
            \(one)|20|0|100|7|1788
            \(one)|12|0|100|8|24
            \(two)|3|0|100|8|140

            """)
    }

    @Test func aDamagedRunIsNamedRatherThanReadWrong() throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        let capture = try store.beginCaptureRun(toolVersion: "t", input: "i", at: at(0))
        let session = try store.startRecording(sessionDraft(project: project.id), at: at(1))
        try store.write(HistoryBatch(flows: [FlowUpsert(handle: 1, rowID: nil, state: udpFlow(port: 1, at: at(2)))],
                                     packets: [packet(1, at: 1, file: 3, offset: 24)]), captureRun: capture.id)
        try store.access { db in try db.execute("UPDATE packet_runs SET entries = '[[0,0,100]]'") }
        #expect(throws: HistoryError.unreadableRow(table: "packet_runs", id: 1, reason: "',' expected at byte 9")) {
            try store.capturedPackets(inRecording: session.id, fileSequence: 3)
        }
    }

    @Test func deletingAFlowTakesItsRunsAndTheHighestSequenceCountsThem() throws {
        let store = try TemporaryDatabase().open()
        let capture = try store.beginCaptureRun(toolVersion: "t", input: "i", at: at(0))
        var old = udpFlow(port: 1, at: at(0))
        old.lastSeen = Instant(at(1))
        try store.write(HistoryBatch(flows: [FlowUpsert(handle: 1, rowID: nil, state: old)],
                                     packets: [packet(1, at: 1, file: 41, offset: 24)]), captureRun: capture.id)
        #expect(try store.highestCaptureFileSequence() == 41)
        #expect(try store.prune(before: at(10)) == 1)
        #expect(try rowCount(store, "packet_runs") == 0)
    }

    @Test func entriesAreReadAsWrittenAndEveryOtherTextIsRefused() throws {
        var run = PacketRuns.Run(key: .init(flowID: 1, fileSequence: 3), first: packet(1, at: .max - 5, file: 3, offset: 24))
        let appended = run.append(packet(1, at: .max, file: 3, offset: UInt64(Int64.max)))
        // Too far from the first to be told against it: the packet starts a run of its own.
        let tooEarly = run.append(packet(1, at: .min, file: 3, offset: 100))
        let offsetBefore = run.append(packet(1, at: .max, file: 3, offset: 10))
        #expect(appended && !tooEarly && !offsetBefore)
        let text = run.text
        #expect(String(decoding: text, as: UTF8.self) == "[[0,0,100,0],[5,0,100,\(Int64.max - 24)]]")
        let read = try text.withUnsafeBufferPointer { try PacketRuns.entries($0, flowID: 7, firstTimestamp: .max - 5, firstOffset: 24, count: 2) }
        #expect(read.map(\.timestampNanoseconds) == [.max - 5, .max])
        #expect(read.map(\.fileOffset) == [24, UInt64(Int64.max)])

        let refused = [
            "", "[", "[]x", "[[0,0,100,0]", "[[0,0,100]]", "[[0,2,100,0]]", "[[0,0,-1,0]]", "[[0,0,4294967296,0]]",
            "[[9223372036854775808,0,1,0]]", "[[--1,0,1,0]]", "[[ 0,0,1,0]]", "[[0,0,1,0],]", "[[0,0,1,-25]]", "[[0,0,1,0]][]",
        ]
        for sample in refused {
            #expect(throws: PacketRuns.Unreadable.self, "\(sample)") {
                try Array(sample.utf8).withUnsafeBufferPointer { try PacketRuns.entries($0, flowID: 7, firstTimestamp: 0, firstOffset: 24, count: 1) }
            }
        }
        #expect(throws: PacketRuns.Unreadable.self) {
            try Array("[[0,0,1,0]]".utf8).withUnsafeBufferPointer { try PacketRuns.entries($0, flowID: 7, firstTimestamp: 0, firstOffset: 0, count: 2) }
        }
        #expect(throws: PacketRuns.Unreadable.self) {
            try Array("[[1,0,1,0]]".utf8).withUnsafeBufferPointer { try PacketRuns.entries($0, flowID: 7, firstTimestamp: .max, firstOffset: 0, count: 1) }
        }
        let extreme = try Array("[[-9223372036854775808,1,4294967295,0]]".utf8).withUnsafeBufferPointer {
            try PacketRuns.entries($0, flowID: 7, firstTimestamp: 0, firstOffset: 0, count: 1)
        }
        #expect(extreme == [SessionCapturedPacket(flowID: 7, timestampNanoseconds: .min, direction: .inbound, wireLength: .max, fileOffset: 0)])
    }

    @Test func decimalsAreWrittenAsSwiftPrintsThem() {
        for value: Int64 in [0, 1, -1, 9, 10, 1_234_567_890, .max, .min, .min + 1] {
            var bytes: [UInt8] = []
            bytes.appendDecimal(value)
            #expect(String(decoding: bytes, as: UTF8.self) == String(value))
        }
    }
}
