import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionCapture

private let base: Int64 = 1_764_504_000_000_000_000

/// A recorder over real capture files in a temporary directory, with the stand-ins above.
private struct Bench {
    let directory: TemporaryDirectory
    let queues: RecorderQueues
    let counters = DatapathCounters()
    let engine = OneFlowEngine()
    let history = MemoryHistory()
    let lines = LogLines()
    let recorder: Recorder

    init(slots: Int = 64, rotationBytes: UInt64 = 64 << 20, retention: RetentionLimits = RetentionLimits(),
         cadence: RecorderCadence = RecorderCadence()) throws {
        directory = try TemporaryDirectory()
        queues = RecorderQueues(packetSlots: slots, packetCapacity: 2048)
        let session = try history.beginCaptureSession(toolVersion: "test", input: "tun:tv0", at: Date(nanosecondsSinceEpoch: base))
        let files = CaptureFileConfiguration(directory: directory.path, rotationBytes: rotationBytes)
        let writer = try CaptureFileWriter(configuration: files, highestSequenceInHistory: 0)
        recorder = Recorder(queues: queues, counters: counters, writer: writer, engine: engine, history: history, session: session,
                            clock: PacketClock(), retention: retention, cadence: cadence, log: lines.log)
    }

    func offer(_ packet: [UInt8], at stamp: Int64) {
        counters.packetsSeen.add(1, ordering: .relaxed)
        packet.withUnsafeBytes { queues.offer($0, wireLength: packet.count, timestampNanoseconds: stamp, counters: counters) }
    }

    /// Drains everything offered so far and finishes, on this thread.
    func finish() {
        recorder.stop()
        recorder.run()
    }
}

private func packet(_ index: Int, size: Int = 200) -> [UInt8] {
    TestPackets.udpV4(source: [10, 77, 0, 2], destination: [192, 0, 2, UInt8(index % 250)], sourcePort: 40_000, destinationPort: 53,
                      payload: [UInt8](repeating: UInt8(index % 256), count: size))
}

@Suite struct RecorderTests {
    @Test func everyRowPointsAtItsOwnBytesAndTheFileWasWrittenBeforeTheRowCommitted() throws {
        let bench = try Bench()
        let sent = (0..<40).map { packet($0) }
        for (index, bytes) in sent.enumerated() { bench.offer(bytes, at: base + Int64(index) * 1_000) }
        bench.finish()

        #expect(bench.history.packets.count == 40)
        #expect(bench.history.pointersMissingFromFiles == 0)
        let files = try bench.history.captureFiles()
        #expect(files.count == 1 && files[0].closedAt != nil)
        let reader = try CaptureFileReader(path: files[0].path)
        for (row, bytes) in zip(bench.history.packets, sent) {
            #expect(row.location.fileSequence == files[0].sequence)
            #expect(try reader.record(at: row.location.offset).bytes == bytes)
        }
        #expect(bench.engine.row == 100)
        let status = try #require(bench.history.statuses.last)
        #expect(status.recorded == 40 && status.notCaptured == 0 && status.dropped == 0 && status.packetsSeen == 40)
        #expect(try tsharkFields(files[0].path, ["ip.dst"]).count == 40)
    }

    @Test func aFullQueueStillLeavesRowsMarkedNotCaptured() throws {
        let bench = try Bench(slots: 8)
        for index in 0..<20 { bench.offer(packet(index, size: 500), at: base + Int64(index)) }
        bench.finish()

        let rows = bench.history.packets
        #expect(rows.count == 20)
        #expect(rows.filter { $0.location.isCaptured }.count == 8)
        let uncaptured = rows.filter { !$0.location.isCaptured }
        #expect(uncaptured.count == 12)
        #expect(uncaptured.allSatisfy { $0.location == .notCaptured && $0.wireLength == 528 })
        // The engine saw only the headers of those, but their full length on the wire.
        #expect(bench.engine.processed.filter { !$0.location.isCaptured }.allSatisfy { $0.bytes.count == RecorderQueues.headerBytes })
        let status = try #require(bench.history.statuses.last)
        #expect(status.dropped == 12 && status.notCaptured == 12 && status.recorded == 8 && status.unrecorded == 0)
    }

    @Test func whenTheCaptureCannotBeWrittenPacketsBecomeNotCapturedTheCauseIsSaidOnceAndCaptureResumes() throws {
        var cadence = RecorderCadence()
        cadence.captureRetryNanoseconds = 1_000_000
        let bench = try Bench(slots: 64, cadence: cadence)
        let directory = bench.directory.path
        rmdir(directory)  // the writer's first file cannot be created
        bench.engine.onProcess = { count in if count == 20 { mkdir(directory, 0o700) } }
        // Twenty packets a microsecond apart while the directory is gone, then twenty after it is back.
        for index in 0..<20 { bench.offer(packet(index), at: base + Int64(index) * 1_000) }
        for index in 20..<40 { bench.offer(packet(index), at: base + 10_000_000 + Int64(index) * 1_000) }
        bench.finish()

        let rows = bench.history.packets
        #expect(rows.prefix(20).allSatisfy { $0.location == .notCaptured })
        #expect(rows.suffix(20).allSatisfy { $0.location.isCaptured })
        #expect(bench.history.pointersMissingFromFiles == 0)
        let said = bench.lines.lines
        #expect(said.filter { $0.hasPrefix("cannot write the capture") }.count == 1)
        #expect(said.contains(DaemonMessage.captureResumed(notCaptured: 20).text))
    }

    @Test func eachRotationRunsRetentionWhichSparesEvidence() throws {
        let bench = try Bench(slots: 256, rotationBytes: 4_096, retention: RetentionLimits(maximumBytes: 10_000))
        bench.history.evidence = [1]
        // 100 records of 244 bytes: 16 to a 4 KiB file, seven files.
        for index in 0..<100 { bench.offer(packet(index), at: base + Int64(index)) }
        bench.finish()

        let kept = try bench.history.captureFiles()
        #expect(kept.map(\.sequence).contains(1))
        #expect(!bench.history.deletedFiles.contains(1))
        #expect(bench.history.deletedFiles.count >= 3)
        #expect(Set(bench.directory.names.compactMap(CaptureFileName.sequence(in:))) == Set(kept.map(\.sequence)))
        #expect(kept.reduce(0) { $0 + $1.bytes } <= 10_000)
        #expect(!bench.history.prunedBefore.isEmpty)
    }
}
