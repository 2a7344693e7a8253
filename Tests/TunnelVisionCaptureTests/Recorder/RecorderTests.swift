import CaptureTestSupport
import Foundation
import Testing
import TunnelVisionCaptureFiles
@testable import TunnelVisionDaemon
@testable import TunnelVisionDaemonLog
@testable import TunnelVisionDatapath
import TunnelVisionModel
@testable import TunnelVisionRecorder
@testable import TunnelVisionRetention
import TunnelVisionStore

private let base: Int64 = 1_764_504_000_000_000_000

/// A recorder over real capture files and a real history database in a temporary directory,
/// with an audit session open so that the store's session reads can show every row.
private struct Bench {
    let directory: TemporaryDirectory
    let captures: String
    let queues: RecorderQueues
    let counters = DatapathCounters()
    let engine = OneFlowEngine()
    let history: WatchedHistory
    let audit: Recording
    let session: CaptureRun
    let lines = LogLines()
    let recorder: Recorder
    let sealKey = Ed25519Key.generate()!

    init(slots: Int = 64, rotationBytes: UInt64 = 64 << 20, retention: RetentionLimits = RetentionLimits(),
         cadence: RecorderCadence = RecorderCadence()) throws {
        directory = try TemporaryDirectory()
        captures = directory.file("captures")
        mkdir(captures, 0o700)
        history = try WatchedHistory(path: directory.file("history.sqlite"))
        let project = try history.store.createAuditProject(AuditProjectDraft(name: "Acme Health"), at: Date(nanosecondsSinceEpoch: base - 10))
        audit = try history.store.startRecording(RecordingDraft(
            projectID: project.id, kind: .baseline,
            environment: AuditEnvironment(deviceModel: "Pixel 8", osVersion: "Android 15", toolVersion: "test"),
            inspection: InspectionConditions(inspectionEnabled: false, caTrusted: false)), at: Date(nanosecondsSinceEpoch: base - 5))
        queues = RecorderQueues(packetSlots: slots, packetCapacity: 2048)
        session = try history.beginCaptureRun(toolVersion: "test", input: "tun:tv0", at: Date(nanosecondsSinceEpoch: base))
        let files = CaptureFileConfiguration(directory: captures, rotationBytes: rotationBytes)
        let writer = try CaptureFileWriter(configuration: files, highestSequenceInHistory: try history.highestCaptureFileSequence())
        recorder = Recorder(queues: queues, counters: counters, writer: writer, engine: engine, history: history, session: session,
                            clock: PacketClock(), retention: retention, cadence: cadence, log: lines.log,
                            sealer: CaptureSealer(key: sealKey, history: history))
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

    /// The session's packet rows per file (nil: not captured), as the store reads them back.
    func rowsPerFile() throws -> [UInt32?: Int] {
        try history.store.reading { try $0.packetCounts(inRecording: audit.id) }
            .reduce(into: [:]) { $0[$1.fileSequence, default: 0] += $1.count }
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

        #expect(bench.history.pointersMissingFromFiles == 0)
        let files = try bench.history.captureFiles()
        #expect(files.count == 1 && files[0].closedAt != nil)
        #expect(try bench.rowsPerFile() == [files[0].sequence: 40])
        let rows = try bench.history.store.reading { try $0.capturedPackets(inRecording: bench.audit.id, fileSequence: files[0].sequence) }
        let reader = try CaptureFileReader(path: files[0].path)
        #expect(try rows.map { try reader.record(at: $0.fileOffset).bytes } == sent)
        #expect(rows.map(\.timestampNanoseconds) == sent.indices.map { base + Int64($0) * 1_000 })
        #expect(try tsharkFields(files[0].path, ["ip.dst"]).count == 40)

        let beat = try #require(try bench.history.store.latestHeartbeat())
        #expect(beat.packetsRecorded == 40 && beat.packetsNotCaptured == 0 && beat.packetsDropped == 0 && beat.packetsSeen == 40)
        #expect(beat.captureBytes == files[0].bytes)
    }

    /// More than the 1 MiB gather buffer in one round goes out in several writes, and
    /// still every row points at its own bytes.
    @Test func aRoundLargerThanTheGatherBufferIsWrittenInPartsAndEveryRowStillPointsAtItsBytes() throws {
        let bench = try Bench(slots: 1_024)
        let sent = (0..<900).map { packet($0, size: 1_400) }
        for (index, bytes) in sent.enumerated() { bench.offer(bytes, at: base + Int64(index) * 1_000) }
        bench.finish()

        #expect(bench.counters.queueFull.load(ordering: .relaxed) == 0)
        #expect(bench.history.pointersMissingFromFiles == 0)
        let files = try bench.history.captureFiles()
        #expect(files.count == 1)
        #expect(try bench.rowsPerFile() == [files[0].sequence: 900])
        let rows = try bench.history.store.reading { try $0.capturedPackets(inRecording: bench.audit.id, fileSequence: files[0].sequence) }
        let reader = try CaptureFileReader(path: files[0].path)
        #expect(try rows.map { try reader.record(at: $0.fileOffset).bytes } == sent)
        #expect(bench.engine.processed.map(\.bytes) == sent)
    }

    @Test func aFullQueueStillLeavesRowsMarkedNotCaptured() throws {
        let bench = try Bench(slots: 8)
        for index in 0..<20 { bench.offer(packet(index, size: 500), at: base + Int64(index)) }
        bench.finish()

        let file = try #require(try bench.history.captureFiles().first?.sequence)
        #expect(try bench.rowsPerFile() == [file: 8, nil: 12])
        // The engine saw only the headers of those, but their full length on the wire.
        let uncaptured = bench.engine.processed.filter { !$0.location.isCaptured }
        #expect(uncaptured.count == 12)
        #expect(uncaptured.allSatisfy { $0.bytes.count == RecorderQueues.headerBytes && $0.wireLength == 528 })
        let beat = try #require(try bench.history.store.latestHeartbeat())
        #expect(beat.packetsNotCaptured == 12 && beat.packetsRecorded == 8 && beat.packetsDropped == 0)
        #expect(bench.lines.lines.contains(DaemonMessage.recorderBehind(packets: 12).text))
    }

    /// Losses across a restart: a clean stop (SIGTERM, as systemd restarts the daemon)
    /// comes with both queues full and the stop already asked for before the recorder drains;
    /// every queued packet still gets its row and nothing is counted lost.
    @Test func aStopWithFullQueuesRecordsEveryQueuedPacketBeforeTheRecorderEnds() throws {
        let bench = try Bench(slots: 16)
        for index in 0..<24 { bench.offer(packet(index, size: 300), at: base + Int64(index) * 1_000) }
        bench.recorder.stop()
        bench.recorder.run()

        let file = try #require(try bench.history.captureFiles().first?.sequence)
        #expect(try bench.rowsPerFile() == [file: 16, nil: 8])
        let losses = try bench.history.store.packetLosses(from: Instant(nanosecondsSinceEpoch: base), to: Instant.now())
        #expect(losses.values.reduce(0, +) == 0)
        let beat = try #require(try bench.history.store.latestHeartbeat())
        #expect(beat.packetsSeen == 24 && beat.packetsRecorded + beat.packetsNotCaptured == 24)
    }

    /// A daemon killed (kill -9, out of memory, power) leaves the history as its last
    /// transaction left it. The recorder runs on its own thread over a real store, which is frozen
    /// as such a death freezes it while packets are in the engine, not yet committed; the next start
    /// counts what the last tally left unaccounted: exactly the packets handed over by then without
    /// a row, and not those handed over after it, which no count knew of ("at least").
    @Test func packetsPendingWhenTheRecorderDiesAreCountedAtTheNextStartFromItsLastTally() throws {
        var cadence = RecorderCadence()
        cadence.commitPackets = 10
        cadence.commitNanoseconds = 3_600_000_000_000
        cadence.heartbeatNanoseconds = 2_000_000
        let bench = try Bench(cadence: cadence)
        let reader = try History(path: bench.directory.file("history.sqlite"))
        let id = bench.session.id
        let recorder = bench.recorder
        let done = DaemonThread.start(name: "test-recorder") { recorder.run() }
        for index in 0..<10 { bench.offer(packet(index), at: base + Int64(index) * 1_000) }
        try waitUntil { try reader.tally(ofCaptureRun: id)?.accounted == 10 }
        for index in 10..<15 { bench.offer(packet(index), at: base + Int64(index) * 1_000) }
        try waitUntil { try reader.tally(ofCaptureRun: id).map { $0.handed == 15 && $0.accounted == 10 } ?? false }
        bench.history.freeze()
        for index in 15..<18 { bench.offer(packet(index), at: base + Int64(index) * 1_000) }
        recorder.stop()
        done.join()

        let rows = try reader.reading { try $0.packetCounts(inRecording: bench.audit.id) }.reduce(0) { $0 + $1.count }
        #expect(rows == 10)
        #expect(try reader.closeInterruptedCaptureRuns() == [id])
        let losses = try reader.packetLosses(from: Instant(nanosecondsSinceEpoch: base), to: Instant.now().addingTimeInterval(60))
        #expect(losses == [.daemonStopped: 15 - UInt64(rows)])
        #expect(try reader.closeInterruptedCaptureRuns().isEmpty)
    }

    /// A clean stop leaves its tally whole: nothing handed over is unaccounted.
    @Test func aCleanStopsLastTallyAccountsForEveryPacketHandedOver() throws {
        let bench = try Bench(slots: 8)
        for index in 0..<20 { bench.offer(packet(index, size: 500), at: base + Int64(index)) }
        bench.finish()
        let tally = try #require(try bench.history.store.tally(ofCaptureRun: bench.session.id))
        #expect(tally.handed == 20 && tally.unaccounted == 0)
    }

    @Test func aBatchTheHistoryRefusedIsCountedAsPacketsWithoutARow() throws {
        let bench = try Bench()
        bench.history.refusesBatches = true
        for index in 0..<12 { bench.offer(packet(index), at: base + Int64(index) * 1_000) }
        bench.finish()

        #expect(try bench.rowsPerFile() == [:])
        let losses = try bench.history.store.packetLosses(from: Instant(nanosecondsSinceEpoch: base), to: Instant.now())
        #expect(losses == [.batchFailed: 12])
        #expect(bench.lines.lines.contains { $0.hasPrefix("the history refused a batch") && $0.contains("counted") })
    }

    @Test func whenTheCaptureCannotBeWrittenPacketsBecomeNotCapturedTheCauseIsSaidOnceAndCaptureResumes() throws {
        var cadence = RecorderCadence()
        cadence.captureRetryNanoseconds = 1_000_000
        let bench = try Bench(cadence: cadence)
        let captures = bench.captures
        rmdir(captures)  // the writer's first file cannot be created
        bench.engine.onProcess = { count in if count == 20 { mkdir(captures, 0o700) } }
        // Twenty packets a microsecond apart while the directory is gone, then twenty after it is back.
        for index in 0..<20 { bench.offer(packet(index), at: base + Int64(index) * 1_000) }
        for index in 20..<40 { bench.offer(packet(index), at: base + 10_000_000 + Int64(index) * 1_000) }
        bench.finish()

        let file = try #require(try bench.history.captureFiles().first?.sequence)
        #expect(try bench.rowsPerFile() == [file: 20, nil: 20])
        #expect(bench.engine.processed.prefix(20).allSatisfy { $0.location == .notCaptured })
        #expect(bench.history.pointersMissingFromFiles == 0)
        let said = bench.lines.lines
        #expect(said.filter { $0.hasPrefix("cannot write the capture") }.count == 1)
        #expect(said.contains(DaemonMessage.captureResumed(notCaptured: 20).text))
    }

    @Test func eachRotationRunsRetentionWhichSparesEvidence() throws {
        let bench = try Bench(slots: 256, rotationBytes: 4_096, retention: RetentionLimits(maximumBytes: 10_000))
        // 100 records of 244 bytes: 16 to a 4 KiB file, seven files. Every packet is the open
        // session's, so every file is evidence: nothing may go, and the cause is said.
        for index in 0..<100 { bench.offer(packet(index), at: base + Int64(index)) }
        bench.finish()

        let kept = try bench.history.captureFiles()
        #expect(kept.count == 7)
        #expect(bench.history.deletedFiles.isEmpty)
        #expect(bench.lines.lines.contains { $0.contains("audit evidence, which is kept until its session is deleted") })
        #expect(Set(bench.directory.names(in: "captures").compactMap(CaptureFileName.sequence(in:))) == Set(kept.map(\.sequence)))
    }

    @Test func everyFileTheRecorderFinishesIsSealedInOneChainWithTheDigestOfItsBytes() throws {
        let bench = try Bench(slots: 256, rotationBytes: 4_096)
        for index in 0..<100 { bench.offer(packet(index), at: base + Int64(index)) }
        bench.finish()

        let files = try bench.history.captureFiles()
        let seals = try bench.history.captureSeals()
        #expect(files.count == 7)
        #expect(seals.map(\.sequence) == files.map(\.sequence))
        #expect(seals.allSatisfy { $0.origin == .written })
        #expect(CaptureChain.check(seals, publicKey: bench.sealKey.publicKey) == nil)
        for (file, seal) in zip(files, seals) {
            let read = try CaptureFileDigest.sha256(ofFileAt: file.path)
            #expect(seal.fileName == URL(fileURLWithPath: file.path).lastPathComponent)
            #expect(read.bytes == seal.bytes && read.sha256 == seal.sha256)
        }
    }

    @Test func withoutEvidenceRetentionHoldsTheSizeLimitAtEachRotation() throws {
        let bench = try Bench(slots: 256, rotationBytes: 4_096, retention: RetentionLimits(maximumBytes: 10_000))
        _ = try bench.history.store.deleteRecording(id: bench.audit.id)
        for index in 0..<100 { bench.offer(packet(index), at: base + Int64(index)) }
        bench.finish()

        let kept = try bench.history.captureFiles()
        #expect(bench.history.deletedFiles.count >= 4)
        #expect(kept.reduce(0) { $0 + $1.bytes } <= 10_000)
        #expect(Set(bench.directory.names(in: "captures").compactMap(CaptureFileName.sequence(in:))) == Set(kept.map(\.sequence)))
        #expect(!bench.history.prunedBefore.isEmpty)
    }
}

/// Polls until `condition` holds, for at most ten seconds.
private func waitUntil(_ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(10)
    while try !condition() {
        guard Date() < deadline else { throw CancellationError() }
        usleep(1_000)
    }
}
