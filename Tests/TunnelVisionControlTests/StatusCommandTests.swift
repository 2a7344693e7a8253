import Foundation
import Testing
import TunnelVisionModel
import TunnelVisionStore

/// `tvctl status` reads the daemon's heartbeat and settings out of the history.
struct StatusCommandTests {
    static func status(_ history: ScratchHistory) throws -> [String: Any] {
        let run = try TVCtlBinary.run(["status", "--json"], database: history.path)
        guard run.status == 0 else { throw TestFailure("status: \(run)") }
        return try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
    }

    @Test func aHistoryWithoutHeartbeatHasNoDaemon() throws {
        let history = try ScratchHistory.seeded()
        let status = try Self.status(history)
        let daemon = try #require(status["daemon"] as? [String: Any])
        #expect(daemon["running"] as? Bool == false)
        #expect(daemon["heartbeatAt"] == nil)
        #expect(status["recording"] == nil)
        #expect(status["inspectionEnabled"] as? Bool == false)
        let human = try TVCtlBinary.run(["status"], database: history.path).output
        #expect(human.hasPrefix("  Daemon      never seen: this history has no heartbeat\n  Inspection  off\n  Recording   none\n"))
    }

    @Test func aFreshHeartbeatIsARunningDaemonAndItsCaptureSession() throws {
        let history = try ScratchHistory.seeded()
        let store = try history.open()
        let now = Date()
        let capture = try store.beginCaptureRun(toolVersion: "0.1.0", input: "tun:tv0", at: now.addingTimeInterval(-100))
        try store.recordHeartbeat(DaemonHeartbeat(
            at: now, pid: 4242, captureRunID: capture.id, input: "tun:tv0", packetsSeen: 1_000, bytesSeen: 500_000,
            packetsRecorded: 990, packetsNotCaptured: 10))
        try store.saveDaemonSettings(DaemonSettings(inspection: true), at: now)
        _ = try store.startRecording(sessionDraft(project: 1, kind: release("2.5.0", "320")), at: now)

        let status = try Self.status(history)
        let daemon = try #require(status["daemon"] as? [String: Any])
        #expect(daemon["running"] as? Bool == true)
        #expect(daemon["pid"] as? Int == 4242)
        let captureShape = try #require(status["capture"] as? [String: Any])
        #expect(captureShape["sessionID"] as? Int == Int(capture.id))
        #expect(captureShape["input"] as? String == "tun:tv0")
        let rates = try #require(status["rates"] as? [String: Any])
        #expect(rates["basis"] as? String == "captureSession", "one heartbeat only: the average")
        #expect(abs((rates["packetsPerSecond"] as? Double ?? 0) - 10) < 0.01)
        #expect(status["inspectionEnabled"] as? Bool == true)
        #expect(status["inspectionCASHA256"] == nil, "configured on, but no relay published a CA")
        #expect((status["recording"] as? [String: Any])?["id"] as? Int == 3)
        #expect((status["traffic"] as? [String: Any])?["packetsNotCaptured"] as? Int == 10)
    }

    @Test func aSilentDaemonIsNotRunning() throws {
        let history = try ScratchHistory.seeded()
        let beat = Date().addingTimeInterval(-60)
        try history.open().recordHeartbeat(DaemonHeartbeat(at: beat, pid: 7, captureRunID: nil, input: "tun:tv0"))
        let status = try Self.status(history)
        #expect((status["daemon"] as? [String: Any])?["running"] as? Bool == false)
        let human = try TVCtlBinary.run(["status"], database: history.path).output
        #expect(human.contains("Daemon      not running: its last heartbeat was at "))
        #expect(human.contains("(1 min 00 s ago)") || human.contains("1 min 00 s ago") || human.contains("1 min 01 s ago"))
    }

    /// While the daemon beats, the rate is measured between two of its heartbeats.
    @Test func ratesAreMeasuredBetweenHeartbeatsWhileTheDaemonRuns() throws {
        let history = try ScratchHistory.seeded()
        let store = try history.open()
        let capture = try store.beginCaptureRun(toolVersion: "0.1.0", input: "tun:tv0", at: Date().addingTimeInterval(-3600))
        let stop = Date().addingTimeInterval(4)
        let beating = Thread {
            var packets: UInt64 = 0
            while Date() < stop {
                packets += 100
                try? store.recordHeartbeat(DaemonHeartbeat(
                    at: Date(), pid: 1, captureRunID: capture.id, input: "tun:tv0", packetsSeen: packets, bytesSeen: packets * 1_000))
                Thread.sleep(forTimeInterval: 0.25)
            }
        }
        beating.start()
        Thread.sleep(forTimeInterval: 0.3)
        let status = try Self.status(history)
        let rates = try #require(status["rates"] as? [String: Any])
        #expect(rates["basis"] as? String == "heartbeats")
        let perSecond = rates["packetsPerSecond"] as? Double ?? 0
        #expect(perSecond > 250 && perSecond < 550, "about 400 packets/s, measured \(perSecond)")
        while Date() < stop { Thread.sleep(forTimeInterval: 0.1) }
    }
}
