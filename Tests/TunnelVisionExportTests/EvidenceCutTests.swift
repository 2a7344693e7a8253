import EvidenceSeeding
import Foundation
import Testing
import TunnelVisionEvidence
@testable import TunnelVisionExport
import TunnelVisionModel
import TunnelVisionStore

/// An ended recording's bundle holds it up to its end: a flow tagged while it was open that
/// goes on collecting packets changes neither capture.pcapng nor flows.json from one export to
/// the next; capture.json counts what came later.
struct EvidenceCutTests {
    typealias Exports = EvidenceExporterTests

    /// Another packet of the seed's last flow, `seconds` after the session's end, written as the
    /// daemon flushes a flow that goes on: its row and the flow's grown counts in one batch.
    static func sendLater(_ seed: EvidenceSeed, seconds: Double) throws {
        let store = try History(path: seed.databasePath)
        let flowID = try #require(seed.packets.last?.flowID)
        var state = try #require(try store.flow(id: flowID)).state
        let instant = seed.end.addingTimeInterval(seconds)
        state.lastSeen = Instant(instant)
        state.packetCount += 1
        state.bytesIn += 60
        let captureRun = try #require(try store.reading { try $0.captureRuns() }.first?.id)
        _ = try store.write(
            HistoryBatch(
                flows: [FlowUpsert(handle: 1, rowID: flowID, state: state)],
                packets: [PacketRecord(flow: 1, timestampNanoseconds: instant.nanosecondsSinceEpoch, direction: .inbound,
                                       wireLength: 60, location: .notCaptured)]),
            captureRun: captureRun)
    }

    static func flows(in folder: URL) throws -> [[String: Any]] {
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("flows.json"))) as? [String: Any]
        return document?["flows"] as? [[String: Any]] ?? []
    }

    @Test func twoExportsAroundLaterPacketsHoldTheSameEvidence() throws {
        let first = try Exports.export(plan: .init(packetsOutsideSession: true))
        try Self.sendLater(first.seed, seconds: 10)
        try Self.sendLater(first.seed, seconds: 11)
        let exporter = EvidenceExporter(
            history: try History(path: first.seed.databasePath), captureDirectory: first.seed.captureDirectory,
            catalogues: Exports.catalogues)
        let again = try exporter.export(
            sessionID: first.seed.sessionID, exportedWith: "tvctl 1.0.0-test", now: Exports.now.addingTimeInterval(61), output: first.output)
        let one = try first.unpacked()
        let other = try Exports.Export(scratch: first.scratch, seed: first.seed, output: first.output, result: again).unpacked()
        for name in ["capture.pcapng", "flows.json", "flows.csv", "findings.json"] {
            #expect(try Data(contentsOf: one.appendingPathComponent(name)) == Data(contentsOf: other.appendingPathComponent(name)), "\(name)")
        }
        #expect(first.result.capture.packetsAfterEnd == 1)
        #expect(again.capture.packetsAfterEnd == 3)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: other.appendingPathComponent("capture.json"))) as? [String: Any]
        #expect(json?["packetsAfterEnd"] as? Int == 3)
        #expect((json?["afterEndContents"] as? String)?.contains("packetsAfterEnd") == true)
    }

    @Test func theFlowThatWentOnIsCountedUpToTheEnd() throws {
        let export = try Exports.export(plan: .init(packetsOutsideSession: true))
        let flows = try Self.flows(in: try export.unpacked())
        let last = try #require(flows.last)
        // The seed gives each flow ten packets inside the session, and the last one more after it.
        #expect(last["packetCount"] as? Int == 10)
        #expect(flows.compactMap { $0["packetCount"] as? Int }.reduce(0, +) == export.result.capture.packets.recorded)
        let end = export.seed.end.nanosecondsSinceEpoch
        let store = try History(path: export.seed.databasePath)
        let captured = try store.reading { snapshot in
            try snapshot.captureFileSequences(inRecording: export.seed.sessionID).flatMap {
                try snapshot.capturedPackets(inRecording: export.seed.sessionID, fileSequence: $0)
            }
        }
        #expect(captured.contains { $0.timestampNanoseconds > end })
        #expect(export.result.capture.packets.written == captured.filter { $0.timestampNanoseconds <= end }.count)
    }

    @Test func countsOfAFileAreCutByWhatCameLater() {
        let counts = [
            SessionPacketCount(flowID: 1, fileSequence: 1, count: 5), SessionPacketCount(flowID: 1, fileSequence: 2, count: 2),
            SessionPacketCount(flowID: 2, fileSequence: nil, count: 3),
        ]
        let later = [SessionPacketCount(flowID: 1, fileSequence: 2, count: 2), SessionPacketCount(flowID: 2, fileSequence: nil, count: 1)]
        #expect(EvidenceCaptureWriter.cut(counts, less: later) == [
            SessionPacketCount(flowID: 1, fileSequence: 1, count: 5), SessionPacketCount(flowID: 2, fileSequence: nil, count: 2),
        ])
    }
}
