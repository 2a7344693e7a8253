import CaptureTestSupport
import Foundation
import Testing
import TunnelVisionCaptureFiles
@testable import TunnelVisionDatapath
import TunnelVisionFlows
import TunnelVisionModel
@testable import TunnelVisionRecorder
import TunnelVisionRelay
@testable import TunnelVisionRetention
import TunnelVisionStore

/// The relay's reports exist only in the daemon's memory until they are committed: a crash must
/// not take them. The recorder here commits on its cadence only once a minute, so anything read
/// back within seconds was committed because a report was waiting. The reading is done the way a
/// restart after `kill -9` would: a second connection to the same SQLite file, while the
/// recorder still runs and has committed nothing on its own.
@Suite struct RelayReportDurabilityTests {
    @Test func anOutcomeFromTheRelayIsCommittedAtOnceNotAtTheNextBatch() throws {
        let directory = try TemporaryDirectory()
        let captures = directory.file("captures")
        mkdir(captures, 0o700)
        let path = directory.file("history.sqlite")
        let history = try WatchedHistory(path: path)
        let start = Date()
        let session = try history.beginCaptureRun(toolVersion: "test", input: "tun:tv0", at: start)
        let writer = try CaptureFileWriter(
            configuration: CaptureFileConfiguration(directory: captures, rotationBytes: 64 << 20),
            highestSequenceInHistory: try history.highestCaptureFileSequence())
        let inbox = RelayInbox()
        let engine = RecorderFlowEngine(
            configuration: FlowEngineConfiguration(clientNetworks: [try #require(IPNetwork("fd77::/64"))]), relay: inbox)
        var cadence = RecorderCadence()
        cadence.commitNanoseconds = 60_000_000_000
        let queues = RecorderQueues(packetSlots: 16, packetCapacity: 2048)
        let counters = DatapathCounters()
        let recorder = Recorder(queues: queues, counters: counters, writer: writer, engine: engine, history: history, session: session,
                                clock: PacketClock(), retention: RetentionLimits(), cadence: cadence, log: LogLines().log)
        let finished = DispatchSemaphore(value: 0)
        Thread { recorder.run(); finished.signal() }.start()
        defer { recorder.stop(); finished.wait() }

        // The phone's first segment to port 443, as the tap reads it on tv0 before the relay answers.
        let packet = TestPackets.tcpV6(sourceLast: 2, destinationLast: 10, sourcePort: 40_000, destinationPort: 443, payload: [0x16, 3, 1])
        counters.packetsSeen.add(1, ordering: .relaxed)
        packet.withUnsafeBytes { queues.offer($0, wireLength: packet.count, timestampNanoseconds: MonotonicClock.wall(), counters: counters) }

        let afterCrash = try History(path: path)
        func committed() throws -> [StoredFlow] { try afterCrash.reading { try $0.flows(inCaptureRun: session.id) } }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try committed().isEmpty, "without a report nothing is committed before the cadence")

        let leg = RelayPhoneLeg(
            phone: Endpoint(address: try #require(IPAddress("fd77::2")), port: 40_000),
            originalDestination: Endpoint(address: try #require(IPAddress("fd88::a")), port: 443))
        var report = RelayReport(phoneLeg: leg, accepted: MonotonicClock.wall())
        report.decision = .terminate(serverName: "api.example")
        report.serverName = "api.example"
        report.outcome = .inspected
        inbox.relayWillAnswer(leg)
        inbox.relayDidReport(report)
        // The next packet takes the report out of the inbox into the flow: it must still count as waiting.
        let next = TestPackets.tcpV6(sourceLast: 2, destinationLast: 10, sourcePort: 40_000, destinationPort: 443, payload: [0x17, 3, 3])
        counters.packetsSeen.add(1, ordering: .relaxed)
        next.withUnsafeBytes { queues.offer($0, wireLength: next.count, timestampNanoseconds: MonotonicClock.wall(), counters: counters) }

        var flows: [StoredFlow] = []
        for _ in 0..<200 where flows.first?.tlsStatus != .inspected {
            Thread.sleep(forTimeInterval: 0.01)
            flows = try committed()
        }
        #expect(flows.count == 1)
        #expect(flows.first?.tlsStatus == .inspected, "the outcome is in the file a restart would read")
    }
}

private enum MonotonicClock {
    static func wall() -> Int64 { Int64(Date().timeIntervalSince1970 * 1e9) }
}
