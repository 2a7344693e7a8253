import Foundation
import Synchronization
import TunnelVisionCaptureFiles
@testable import TunnelVisionDaemonLog
import TunnelVisionModel
@testable import TunnelVisionRecorder
import TunnelVisionStore

/// Test-only stand-in for the flow engine: every packet belongs to one flow, and each batch
/// carries the packets seen since the last one. Only what the recorder must get right is real.
final class OneFlowEngine: PacketEngine {
    private(set) var processed: [(bytes: [UInt8], wireLength: Int, location: CaptureLocation)] = []
    private var pending: [PacketRecord] = []
    private(set) var row: Int64?
    private var firstStamp: Int64?
    var onProcess: ((Int) -> Void)?

    func process(packet: UnsafeRawBufferPointer, wireLength: Int, timestampNanoseconds: Int64, location: CaptureLocation) {
        processed.append((Array(packet), wireLength, location))
        firstStamp = firstStamp ?? timestampNanoseconds
        pending.append(PacketRecord(flow: 1, timestampNanoseconds: timestampNanoseconds, direction: .outbound,
                                    wireLength: UInt32(wireLength), location: location))
        onProcess?(processed.count)
    }

    func takeBatch(now: Int64) -> HistoryBatch {
        defer { pending.removeAll() }
        guard !pending.isEmpty else { return HistoryBatch() }
        let key = FlowKey(proto: .udp, Endpoint(address: IPAddress(v4: 1), port: 1), Endpoint(address: IPAddress(v4: 2), port: 2))
        let first = Instant(nanosecondsSinceEpoch: firstStamp ?? now)
        let last = Instant(nanosecondsSinceEpoch: pending.last?.timestampNanoseconds ?? now)
        let state = FlowState(key: key, firstSeen: first, lastSeen: last, packetCount: UInt64(processed.count))
        return HistoryBatch(flows: [FlowUpsert(handle: 1, rowID: row, state: state)], packets: pending)
    }

    func assign(rows: [FlowHandle: Int64], of batch: HistoryBatch) { row = rows[1] ?? row }

    func finishAll() -> HistoryBatch { takeBatch(now: 0) }
}

/// The real store, watched: at each commit it checks that the capture file already holds every
/// packet the batch points at — the order the recorder promises — and it can refuse the
/// evidence list, as an unreadable database would.
final class WatchedHistory: CaptureHistory {
    let store: History
    private(set) var pointersMissingFromFiles = 0
    private(set) var batches = 0
    private(set) var deletedFiles: [UInt32] = []
    private(set) var prunedBefore: [Date] = []
    private(set) var heartbeats: [DaemonHeartbeat] = []

    init(path: String) throws { store = try History(path: path) }

    /// Once set, nothing more is written, as when the daemon is killed: the history stays as its
    /// last transaction left it.
    func freeze() { frozen.store(true, ordering: .releasing) }
    private let frozen = Atomic<Bool>(false)
    private func refuseOnceFrozen() throws {
        if frozen.load(ordering: .acquiring) { throw HistoryError.diskFull(path: store.path) }
    }

    func closeInterruptedCaptureRuns() throws -> [Int64] { try store.closeInterruptedCaptureRuns() }
    func tally(ofCaptureRun id: Int64) throws -> TapTally? { try store.tally(ofCaptureRun: id) }
    func beginCaptureRun(toolVersion: String, input: String, at date: Date) throws -> CaptureRun {
        try store.beginCaptureRun(toolVersion: toolVersion, input: input, at: date)
    }
    func endCaptureRun(id: Int64, at date: Date) throws {
        try refuseOnceFrozen()
        try store.endCaptureRun(id: id, at: date)
    }
    func write(_ batch: HistoryBatch, captureRun: Int64, tagging: RecordingTagging, tally: TapTally?) throws -> [FlowHandle: Int64] {
        try refuseOnceFrozen()
        let files = Dictionary(uniqueKeysWithValues: try store.captureFiles().map { ($0.sequence, $0.path) })
        for packet in batch.packets where packet.location.isCaptured {
            let path = files[packet.location.fileSequence]
            if path.flatMap({ try? CaptureFileReader(path: $0).record(at: packet.location.offset) }) == nil {
                pointersMissingFromFiles += 1
            }
        }
        batches += 1
        if refusesBatches { throw HistoryError.diskFull(path: store.path) }
        return try store.write(batch, captureRun: captureRun, tally: tally)
    }
    func recordCaptureFile(_ file: CaptureFile) throws {
        try refuseOnceFrozen()
        try store.recordCaptureFile(file)
    }
    func captureFiles() throws -> [CaptureFile] { try store.captureFiles() }
    func captureSeals() throws -> [CaptureSeal] { try store.captureSeals() }
    func appendCaptureSeal(_ make: (CaptureSeal?) throws -> CaptureSeal) throws {
        try refuseOnceFrozen()
        try store.appendCaptureSeal(make)
    }
    func deleteCaptureFile(sequence: UInt32) throws {
        deletedFiles.append(sequence)
        try store.deleteCaptureFile(sequence: sequence)
    }
    func highestCaptureFileSequence() throws -> UInt32 { try store.highestCaptureFileSequence() }
    func auditEvidenceFileSequences() throws -> Set<UInt32> { try store.auditEvidenceFileSequences() }
    func prune(before date: Date) throws -> Int {
        prunedBefore.append(date)
        return try store.prune(before: date)
    }
    func saveDaemonSettings(_ settings: DaemonSettings, at date: Date) throws { try store.saveDaemonSettings(settings, at: date) }
    func recordHeartbeat(_ beat: DaemonHeartbeat) throws {
        try refuseOnceFrozen()
        heartbeats.append(beat)
        try store.recordHeartbeat(beat)
    }
    func checkpoint() throws { try store.checkpoint() }
    /// While set, every batch is refused, as a history whose disk filled up would.
    var refusesBatches = false
    func recordPacketLoss(_ packets: UInt64, reason: PacketLossReason, captureRun: Int64, at date: Date) throws {
        try refuseOnceFrozen()
        try store.recordPacketLoss(packets, reason: reason, captureRun: captureRun, at: date)
    }
    func recordTally(_ tally: TapTally, losses: [PacketLossReason: UInt64], captureRun: Int64) throws {
        try refuseOnceFrozen()
        try store.recordTally(tally, losses: losses, captureRun: captureRun)
    }
    func recordTapDrops(_ drops: PassiveTapDrops, captureRun: Int64) throws {
        try store.recordTapDrops(drops, captureRun: captureRun)
    }
}

/// Collects what the daemon would have logged.
final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    var lines: [String] { lock.withLock { stored } }
    var log: DaemonLog { DaemonLog { _, line in self.lock.withLock { self.stored.append(line) } } }
}
