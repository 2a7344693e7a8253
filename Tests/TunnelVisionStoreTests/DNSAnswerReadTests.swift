import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionStore

/// tvwire dns-answers reads what the engine wrote: each address with its name and its flow's row.
@Suite struct DNSAnswerReadTests {
    @Test func theAnswersAreReadInTheOrderWrittenWithTheirFlowsRow() throws {
        let store = try TemporaryDatabase().open()
        let capture = try store.beginCaptureRun(toolVersion: "t", input: "i", at: at(0))
        let answers = [
            DNSAnswerRecord(timestampNanoseconds: 1, queryName: "api.example", address: IPAddress(v4: 0x5DB8_0001), ttl: 60, flow: 4),
            DNSAnswerRecord(timestampNanoseconds: 2, queryName: "api.example", address: IPAddress(v6High: 0x2001_0DB8 << 32, low: 1), ttl: 60, flow: 4),
        ]
        let rows = try store.write(
            HistoryBatch(flows: [FlowUpsert(handle: 4, rowID: nil, state: udpFlow(port: 53, at: at(1)))], dnsAnswers: answers),
            captureRun: capture.id)
        let read = try store.reading { try $0.dnsAnswers() }
        #expect(read == [
            StoredDNSAnswer(flowID: rows[4], queryName: "api.example", address: "93.184.0.1"),
            StoredDNSAnswer(flowID: rows[4], queryName: "api.example", address: "2001:db8::1"),
        ])
    }
}
