import CaptureTestSupport
import Foundation
import Testing
import TunnelVisionImport
import TunnelVisionModel
import TunnelVisionStore

/// A packet's nanosecond stamp reaches the history's row and the instant every document prints
/// as it was: no Double of seconds on the way, which cannot tell apart instants about 240 ns
/// apart at today's dates.
@Suite struct ExactInstantTests {
    /// A nanosecond-resolution pcap of raw IP packets at the given stamps.
    static func capture(_ packets: [(nanoseconds: Int64, bytes: [UInt8])]) -> [UInt8] {
        func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        var file = le32(0xA1B2_3C4D) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(65_535) + le32(101)
        for packet in packets {
            let (seconds, nanoseconds) = packet.nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
            file += le32(UInt32(seconds)) + le32(UInt32(nanoseconds))
            file += le32(UInt32(packet.bytes.count)) + le32(UInt32(packet.bytes.count)) + packet.bytes
        }
        return file
    }

    @Test func aPacketsStampSurvivesTheEngineTheHistoryAndTheDocumentToTheNanosecond() throws {
        let work = try TemporaryDirectory()
        // 72 and 184 ns away from the nearest instants a Double of seconds holds at this date.
        let first: Int64 = 1_790_000_000_123_456_789
        let last: Int64 = 1_790_000_000_123_457_001
        #expect(Date(nanosecondsSinceEpoch: first).nanosecondsSinceEpoch != first)
        let packet = TestPackets.udpV4(source: [10, 0, 0, 2], destination: [192, 0, 2, 1], sourcePort: 40_000,
                                       destinationPort: 9_999, payload: [1, 2, 3])
        work.create("exact.pcap", bytes: Self.capture([(first, packet), (last, packet)]))
        let store = try History(path: work.file("history.sqlite"))
        let request = OfflineImportRequest(capturePath: work.file("exact.pcap"), captureDirectory: work.file("captures"),
                                           clientNetworks: [])
        let summary = try OfflineImport.run(request, into: store, toolVersion: "test")

        let flow = try #require(try store.reading { try $0.flows(inCaptureRun: summary.captureRun) }.first)
        #expect(flow.packetCount == 2)
        #expect(flow.firstSeen.nanosecondsSinceEpoch == first)
        #expect(flow.lastSeen.nanosecondsSinceEpoch == last)
        // What flows.json, flows.csv and `--json` write for it.
        #expect(flow.firstSeen.description == "2026-09-21T14:13:20.123456789Z")
        #expect(flow.lastSeen.description == "2026-09-21T14:13:20.123457001Z")
        #expect(flow.duration == 0.000_000_212)
    }
}
