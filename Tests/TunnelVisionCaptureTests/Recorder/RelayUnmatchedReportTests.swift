import CaptureTestSupport
import Foundation
import Testing
import TunnelVisionFlows
import TunnelVisionModel
@testable import TunnelVisionRecorder
import TunnelVisionRelay
import TunnelVisionStore

/// A report of the relay that finds no flow of the tap is counted, and the count reaches the
/// heartbeat that `tvctl status` reads.
@Suite("Relay reports that match no flow")
struct RelayUnmatchedReportTests {
    static func report(port: UInt16) throws -> RelayReport {
        let leg = RelayPhoneLeg(
            phone: Endpoint(address: try #require(IPAddress("10.77.0.2")), port: port),
            originalDestination: Endpoint(address: try #require(IPAddress("198.51.100.13")), port: 443))
        var report = RelayReport(phoneLeg: leg, accepted: 1)
        report.decision = .terminate(serverName: "tls13.lab")
        report.outcome = .inspected
        report.isFinal = true
        return report
    }

    @Test("A report for a flow the tap never saw is counted once its patience is over; other messages are not reports")
    func counted() throws {
        let inbox = RelayInbox()
        let engine = RecorderFlowEngine(configuration: FlowEngineConfiguration(), relay: inbox)
        let report = try Self.report(port: 58_439)
        inbox.relayWillAnswer(report.phoneLeg)
        inbox.relayDidReport(report)
        _ = engine.takeBatch(now: 1)
        #expect(engine.relayReportsUnmatched == 0, "within its patience a report still waits for its flow")
        engine.unappliedPatienceNanoseconds = 0
        Thread.sleep(forTimeInterval: 0.01)
        _ = engine.takeBatch(now: 2)
        #expect(engine.relayReportsUnmatched == 1)
        #expect(engine.relayUpdatesLost == 2)
    }

    @Test("The heartbeat keeps the relay's counts, and a heartbeat without a relay keeps none")
    func heartbeat() throws {
        let directory = try TemporaryDirectory()
        let store = try History(path: directory.file("history.sqlite"))
        var beat = DaemonHeartbeat(at: Date(timeIntervalSince1970: 1_700_000_000), pid: 7, captureRunID: nil, input: "tun:tv0")
        try store.recordHeartbeat(beat)
        let none = try #require(try store.latestHeartbeat())
        #expect(none.relayConnections == nil && none.relayRefusedAtCeiling == nil && none.relayReportsUnmatched == nil)
        beat.relayConnections = 3000
        beat.relayRefusedAtCeiling = 100
        beat.relayReportsUnmatched = 2
        try store.recordHeartbeat(beat)
        let read = try #require(try store.latestHeartbeat())
        #expect(read.relayConnections == 3000 && read.relayRefusedAtCeiling == 100 && read.relayReportsUnmatched == 2)
    }
}
