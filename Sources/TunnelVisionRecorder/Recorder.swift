import Foundation
import Synchronization
import TunnelVisionCaptureFiles
import TunnelVisionDaemonLog
import TunnelVisionDatapath
import TunnelVisionModel
import TunnelVisionRetention
import TunnelVisionStore
import TunnelVisionWire

/// How often the recorder commits and reports.
public struct RecorderCadence: Sendable, Hashable {
    /// A batch commits at least this often, so a flow's row is at most this far behind.
    public var commitNanoseconds: Int64 = 250_000_000
    /// …or as soon as this many packets wait for one.
    public var commitPackets = 4096
    /// …or this soon after the last commit when facts known nowhere else wait (the relay's reports).
    public var factsNanoseconds: Int64 = 1_000_000
    public var heartbeatNanoseconds: Int64 = 1_000_000_000
    /// Between commits, the tally of what the history accounts for is written this often while
    /// packets wait in the engine: after a kill -9 the count of what was lost is as close as this.
    public var tallyNanoseconds: Int64 = 50_000_000
    /// After a failed capture write, how long packets go uncaptured before writing is tried again.
    public var captureRetryNanoseconds: Int64 = 1_000_000_000

    public init() {}
}

/// The recorder thread: takes packets off the input's queues, writes their bytes to the capture,
/// feeds the flow engine, and commits the engine's batches — the capture flushed first, so no
/// row ever points at bytes that are not in the file. When the capture cannot be written, packets
/// still become rows, marked not captured, and writing resumes by itself.
///
/// A round's bytes go to the file in large writes (staged in the writer: one write per record cost more than the rest of a round), and its
/// packets reach the engine once that write said where they are; with nothing queued the thread
/// sleeps until the input rings or the next commit or heartbeat is due.
public final class Recorder: @unchecked Sendable {
    private let queues: RecorderQueues
    private let counters: DatapathCounters
    private let writer: CaptureFileWriter
    private let engine: PacketEngine
    private let history: CaptureHistory
    private let session: CaptureRun
    private let clock: PacketClock
    private let cadence: RecorderCadence
    private let log: DaemonLog
    private var retention: RetentionRunner
    private let commitPath: HistoryCommit
    private let stopping = Atomic<Bool>(false)
    /// Bytes of virtio-net header before each queued packet; 0 for inputs without one.
    private let virtioHeaderLength: Int
    /// Whether each heartbeat says how many packets found the queue full (forwarding first).
    private let saysBehindEachSecond: Bool
    /// Where a super-packet's segments are built, one at a time.
    private let segmentScratch: UnsafeMutableRawBufferPointer

    private var status: DaemonHeartbeat
    private var queueFullAtLastBeat: UInt64 = 0
    private var unrecordedAtLastBeat: UInt64 = 0
    /// Packets without a row, not yet in the history: retried at every heartbeat until written.
    private var unrecordedLosses: [PacketLossReason: UInt64] = [:]
    /// What the history accounts for of what the tap handed over, written with each batch and beat,
    /// so that a run that ends without a stop still says what it lost.
    private var ledger = TapLedger()
    private var heartbeatFailing = false
    private var pendingPackets = 0
    private var lastCommit: Int64 = 0
    private var lastHeartbeat: Int64 = 0
    private var lastTally: Int64 = 0
    private var captureBlockedUntil: Int64?
    private var notCapturedWhileBlocked: UInt64 = 0
    private var rotated = false
    /// Packets whose bytes wait in the writer for one write with the rest of their round.
    private var staged: [StagedPacket] = []

    private struct StagedPacket {
        let record: StagedRecord
        let wireLength: Int
        let timestampNanoseconds: Int64
    }

    /// Called after each heartbeat that found the input thread alive: the watchdog's food.
    public var onHeartbeat: (@Sendable () -> Void)?
    /// Adds what others count (the relay's) to each heartbeat, on the recorder's thread.
    public var addToHeartbeat: ((inout DaemonHeartbeat) -> Void)?

    public init(queues: RecorderQueues, counters: DatapathCounters, writer: CaptureFileWriter,
                engine: PacketEngine, history: CaptureHistory, session: CaptureRun, clock: PacketClock,
                retention: RetentionLimits, cadence: RecorderCadence = RecorderCadence(), log: DaemonLog,
                virtioHeaderLength: Int = 0, saysBehindEachSecond: Bool = true, sealer: CaptureSealer? = nil) {
        self.saysBehindEachSecond = saysBehindEachSecond
        self.queues = queues
        self.counters = counters
        self.writer = writer
        self.engine = engine
        self.history = history
        self.session = session
        self.clock = clock
        self.cadence = cadence
        self.log = log
        self.retention = RetentionRunner(limits: retention, folder: writer.configuration.directory, log: log)
        self.virtioHeaderLength = virtioHeaderLength
        segmentScratch = .allocate(byteCount: virtioHeaderLength > 0 ? queues.packets.slotCapacity : 0, alignment: 64)
        commitPath = HistoryCommit(writer: writer, history: history, captureRun: session.id, sealer: sealer)
        status = DaemonHeartbeat(at: session.startedAt.date, pid: getpid(), captureRunID: session.id, input: session.input)
    }

    deinit { segmentScratch.deallocate() }

    /// Asks the thread to drain what is queued, commit it, close the file and return.
    public func stop() {
        stopping.store(true, ordering: .releasing)
        queues.filled.ring()
    }

    /// The status as of the last heartbeat (read after `run()` returned, or from its thread).
    public var lastStatus: DaemonHeartbeat { status }

    /// Runs until `stop()` and the queues are empty; meant for a thread of its own.
    public func run() {
        var lastLoops: UInt64 = 0
        lastCommit = clock.now()
        lastHeartbeat = lastCommit
        while true {
            let stopRequested = stopping.load(ordering: .acquiring)
            var moved = queues.packets.drain(limit: 1024, recordQueued)
            writeStaged()
            moved += queues.headers.drain(limit: 1024, recordHeadersOnly)
            let now = clock.now()
            if pendingPackets >= cadence.commitPackets || now - lastCommit >= cadence.commitNanoseconds
                || now - lastCommit >= cadence.factsNanoseconds && engine.hasFactsToKeep {
                commit(now: now)
            }
            if now - lastTally >= cadence.tallyNanoseconds, ledger.hasUnsettled { recordLosses(now: now) }
            if now - lastHeartbeat >= cadence.heartbeatNanoseconds {
                heartbeat(now: now)
                let loops = counters.loops.load(ordering: .relaxed)
                if loops != lastLoops { onHeartbeat?() }
                lastLoops = loops
            }
            if moved == 0 {
                if stopRequested { break }
                // Asleep until the input publishes or the relay reports (both ring `filled`), or
                // until the next commit, tally or heartbeat is due.
                var due = min(lastCommit + cadence.commitNanoseconds, lastHeartbeat + cadence.heartbeatNanoseconds)
                if ledger.hasUnsettled { due = min(due, lastTally + cadence.tallyNanoseconds) }
                if engine.hasFactsToKeep { due = min(due, lastCommit + cadence.factsNanoseconds) }
                queues.filled.wait(timeoutNanoseconds: min(max(due - clock.now(), 0), 100_000_000)) {
                    queues.hasWaitingPackets || stopping.load(ordering: .acquiring) || engine.hasFactsToKeep
                }
            }
        }
        let now = clock.now()
        do { try writer.close(at: Date(nanosecondsSinceEpoch: now)) } catch { suspendCapture(error, now: now) }
        commit(now: now, finishing: true)
        heartbeat(now: now)
    }

    /// With offload, what the wire carried: a super-packet cut into its segments, a partial
    /// checksum completed; each is captured and counted on its own.
    private func recordQueued(_ slot: UnsafeRawBufferPointer, wireLength: Int, timestampNanoseconds: Int64) {
        ledger.took()
        guard virtioHeaderLength > 0, slot.count > virtioHeaderLength else {
            recordCaptured(slot, wireLength: wireLength, timestampNanoseconds: timestampNanoseconds)
            return
        }
        let header = UnsafeRawBufferPointer(rebasing: slot[0..<virtioHeaderLength])
        let packet = UnsafeRawBufferPointer(rebasing: slot[virtioHeaderLength...])
        OffloadedPacket.forEachSegment(virtioHeader: header, packet: packet, scratch: segmentScratch) { segment in
            recordCaptured(segment, wireLength: segment.count, timestampNanoseconds: timestampNanoseconds)
        }
    }

    /// A packet's bytes are staged, and it reaches the engine once they were written (or not) in
    /// one write with the others of its round; a packet that is not captured waits for those
    /// before it, so the engine sees packets in the order the queue held them.
    private func recordCaptured(_ packet: UnsafeRawBufferPointer, wireLength: Int, timestampNanoseconds: Int64) {
        if captureOpen(at: timestampNanoseconds), let record = stage(packet, timestampNanoseconds: timestampNanoseconds) {
            staged.append(StagedPacket(record: record, wireLength: wireLength, timestampNanoseconds: timestampNanoseconds))
            return
        }
        writeStaged()
        countNotCaptured()
        feed(packet, wireLength: wireLength, timestampNanoseconds: timestampNanoseconds, location: .notCaptured)
    }

    private func captureOpen(at timestampNanoseconds: Int64) -> Bool {
        captureBlockedUntil.map { timestampNanoseconds >= $0 } ?? true
    }

    private func stage(_ packet: UnsafeRawBufferPointer, timestampNanoseconds: Int64) -> StagedRecord? {
        do {
            if let record = try writer.stage(packet, timestampNanoseconds: timestampNanoseconds) { return record }
            writeStaged()
            guard captureOpen(at: timestampNanoseconds) else { return nil }
            return try writer.stage(packet, timestampNanoseconds: timestampNanoseconds)
        } catch {
            suspendCapture(error, now: timestampNanoseconds)
            return nil
        }
    }

    /// Writes the staged packets' bytes in one go, then hands the packets to the engine: as
    /// captured where the write went through, as not captured where it failed.
    private func writeStaged() {
        guard let last = staged.last else { return }
        var written = true
        do {
            try writer.writeStaged(at: Date(nanosecondsSinceEpoch: last.timestampNanoseconds))
            if captureBlockedUntil != nil {
                log.say(.captureResumed(notCaptured: notCapturedWhileBlocked))
                captureBlockedUntil = nil
                notCapturedWhileBlocked = 0
            }
        } catch {
            written = false
            suspendCapture(error, now: last.timestampNanoseconds)
        }
        for packet in staged {
            if written { status.packetsRecorded += 1 } else { countNotCaptured() }
            feed(writer.stagedBytes(packet.record), wireLength: packet.wireLength, timestampNanoseconds: packet.timestampNanoseconds,
                 location: written ? packet.record.location : .notCaptured)
        }
        staged.removeAll(keepingCapacity: true)
    }

    private func recordHeadersOnly(_ packet: UnsafeRawBufferPointer, wireLength: Int, timestampNanoseconds: Int64) {
        ledger.took()
        countNotCaptured()
        feed(packet, wireLength: wireLength, timestampNanoseconds: timestampNanoseconds, location: .notCaptured)
    }

    private func feed(_ packet: UnsafeRawBufferPointer, wireLength: Int, timestampNanoseconds: Int64, location: CaptureLocation) {
        engine.process(packet: packet, wireLength: wireLength, timestampNanoseconds: timestampNanoseconds, location: location)
        pendingPackets += 1
    }

    private func countNotCaptured() {
        status.packetsNotCaptured += 1
        if captureBlockedUntil != nil { notCapturedWhileBlocked += 1 }
    }

    /// The cause is said once when capture stops working, not once per packet.
    private func suspendCapture(_ error: Error, now: Int64) {
        if captureBlockedUntil == nil { log.say(.captureSuspended(cause: CaptureWriteError.describe(error))) }
        captureBlockedUntil = now + cadence.captureRetryNanoseconds
    }

    private func commit(now: Int64, finishing: Bool = false) {
        lastCommit = now
        let batch = finishing ? engine.finishAll() : engine.takeBatch(now: now)
        pendingPackets = 0
        let inBatch = ledger.takeBatch()
        var refused = false
        let tally = ledger.tally(withBatchOf: inBatch, handed: counters.packetsSeen.load(ordering: .relaxed),
                                 at: Date(nanosecondsSinceEpoch: now))
        lastTally = now
        let outcome = commitPath.commit(batch, tally: tally) { failure in
            switch failure {
            case .flush(let error): suspendCapture(error, now: now)
            // The heartbeat records the open file again; a closed one is recorded at the next start.
            case .recordFile: break
            case .sealFile(let file, let error): log.say(.sealFailed(path: file.path, cause: String(describing: error)))
            case .batch(let error):
                log.say(.batchRefused(cause: String(describing: error)))
                // Its flows are upserted again whole by the next batch; its packets' rows are gone.
                unrecordedLosses[.batchFailed, default: 0] += UInt64(batch.packets.count)
                refused = true
            }
            return true
        }
        if refused { ledger.lost(inBatch) } else { ledger.committed(inBatch) }
        if let rows = outcome.rows { engine.assign(rows: rows, of: batch) }
        if !outcome.closed.isEmpty { rotated = true }
        if rotated {
            rotated = false
            retention.run(history: history, now: Date(nanosecondsSinceEpoch: now))
        }
    }

    /// Counts written are forgotten; counts the history refused stay for the next try. The tally
    /// goes with them, so that the packets they count are accounted exactly when they are.
    private func recordLosses(now: Int64) {
        lastTally = now
        // Read after the counters the losses came from: the tally never has more settled than handed.
        let tally = ledger.tallyWithCountedLosses(handed: counters.packetsSeen.load(ordering: .acquiring),
                                                  at: Date(nanosecondsSinceEpoch: now))
        guard (try? history.recordTally(tally, losses: unrecordedLosses, captureRun: session.id)) != nil else { return }
        unrecordedLosses = [:]
        ledger.lossesCounted()
    }

    private func heartbeat(now: Int64) {
        lastHeartbeat = now
        status.at = Date(nanosecondsSinceEpoch: now)
        status.packetsSeen = counters.packetsSeen.load(ordering: .relaxed)
        status.bytesSeen = counters.bytesSeen.load(ordering: .relaxed)
        status.packetsDropped = counters.unrecorded.load(ordering: .relaxed)
        status.queueDepth = queues.packets.depth
        let queueFull = counters.queueFull.load(ordering: .relaxed)
        if saysBehindEachSecond, queueFull > queueFullAtLastBeat { log.say(.recorderBehind(packets: queueFull - queueFullAtLastBeat)) }
        queueFullAtLastBeat = queueFull
        // A full packet queue still leaves a row (not captured); only a full header queue loses it.
        if status.packetsDropped > unrecordedAtLastBeat {
            unrecordedLosses[.queueFull, default: 0] += status.packetsDropped - unrecordedAtLastBeat
            ledger.lost(status.packetsDropped - unrecordedAtLastBeat)
        }
        unrecordedAtLastBeat = status.packetsDropped
        recordLosses(now: now)
        if counters.countsTapDrops.load(ordering: .acquiring) {
            let drops = PassiveTapDrops(kernel: counters.tapKernelDrops.load(ordering: .relaxed),
                                        interface: counters.tapInterfaceDrops.load(ordering: .relaxed))
            // Totals: a failed write is made good by the next heartbeat's.
            try? history.recordTapDrops(drops, captureRun: session.id)
        }
        if let file = writer.currentFile { try? history.recordCaptureFile(file) }
        status.captureBytes = ((try? history.captureFiles()) ?? []).reduce(0) { $0 &+ $1.bytes }
        addToHeartbeat?(&status)
        do {
            try history.recordHeartbeat(status)
            heartbeatFailing = false
        } catch {
            if !heartbeatFailing { log.say(.heartbeatFailed(cause: String(describing: error))) }
            heartbeatFailing = true
        }
    }
}
