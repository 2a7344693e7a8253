import Foundation
import TunnelVisionModel
@testable import TunnelVisionCapture

/// Test-only stand-in for the flow engine: every packet belongs to one flow, and each batch
/// carries the packets seen since the last one. Only what the recorder must get right is real.
final class OneFlowEngine: PacketEngine {
    private(set) var processed: [(bytes: [UInt8], wireLength: Int, location: CaptureLocation)] = []
    private var pending: [PacketRecord] = []
    private(set) var row: Int64?
    var onProcess: ((Int) -> Void)?

    func process(packet: UnsafeRawBufferPointer, wireLength: Int, timestampNanoseconds: Int64, location: CaptureLocation) {
        processed.append((Array(packet), wireLength, location))
        pending.append(PacketRecord(flow: 1, timestampNanoseconds: timestampNanoseconds, direction: .outbound,
                                    wireLength: UInt32(wireLength), location: location))
        onProcess?(processed.count)
    }

    func takeBatch(now: Int64) -> HistoryBatch {
        defer { pending.removeAll() }
        guard !pending.isEmpty else { return HistoryBatch() }
        let key = FlowKey(proto: .udp, Endpoint(address: IPAddress(v4: 1), port: 1), Endpoint(address: IPAddress(v4: 2), port: 2))
        let state = FlowState(key: key, firstSeen: Date(nanosecondsSinceEpoch: now), packetCount: UInt64(processed.count))
        return HistoryBatch(flows: [FlowUpsert(handle: 1, rowID: row, state: state)], packets: pending)
    }

    func assign(rows: [FlowHandle: Int64]) { row = rows[1] ?? row }
}

/// Test-only stand-in for the store, in memory. It checks at each commit that the capture file
/// already holds every packet the batch points at — the order the recorder promises.
final class MemoryHistory: CaptureHistory {
    private(set) var sessions: [CaptureSession] = []
    private(set) var packets: [PacketRecord] = []
    private(set) var files: [UInt32: CaptureFile] = [:]
    private(set) var deletedFiles: [UInt32] = []
    private(set) var statuses: [RecorderStatus] = []
    private(set) var settings: [String: String] = [:]
    private(set) var prunedBefore: [Date] = []
    private(set) var pointersMissingFromFiles = 0
    var evidence: Set<UInt32> = []
    var highestSequence: UInt32 = 0

    func closeInterruptedCaptureSessions() throws {
        sessions = sessions.map { $0.endedAt == nil ? CaptureSession(id: $0.id, startedAt: $0.startedAt, endedAt: $0.startedAt, toolVersion: $0.toolVersion, input: $0.input) : $0 }
    }

    func beginCaptureSession(toolVersion: String, input: String, at instant: Date) throws -> CaptureSession {
        let session = CaptureSession(id: Int64(sessions.count + 1), startedAt: instant, endedAt: nil, toolVersion: toolVersion, input: input)
        sessions.append(session)
        return session
    }

    func endCaptureSession(id: Int64, at instant: Date) throws {
        sessions = sessions.map { $0.id == id ? CaptureSession(id: $0.id, startedAt: $0.startedAt, endedAt: instant, toolVersion: $0.toolVersion, input: $0.input) : $0 }
    }

    func write(_ batch: HistoryBatch, captureSession: Int64) throws -> [FlowHandle: Int64] {
        for packet in batch.packets where packet.location.isCaptured {
            let readable = files[packet.location.fileSequence].flatMap { try? CaptureFileReader(path: $0.path).record(at: packet.location.offset) }
            if readable == nil { pointersMissingFromFiles += 1 }
        }
        packets += batch.packets
        return Dictionary(uniqueKeysWithValues: batch.flows.map { ($0.handle, $0.rowID ?? 100) })
    }

    func recordCaptureFile(_ file: CaptureFile) throws { files[file.sequence] = file }
    func captureFiles() throws -> [CaptureFile] { files.values.sorted { $0.sequence < $1.sequence } }
    func deleteCaptureFile(sequence: UInt32) throws {
        files[sequence] = nil
        deletedFiles.append(sequence)
    }
    func highestCaptureFileSequence() throws -> UInt32 { max(highestSequence, files.keys.max() ?? 0) }
    func auditEvidenceFileSequences() throws -> Set<UInt32> { evidence }
    func prune(before instant: Date) throws { prunedBefore.append(instant) }
    func saveDaemonSettings(_ settings: [String: String], at instant: Date) throws { self.settings = settings }
    func recordStatus(_ status: RecorderStatus) throws { statuses.append(status) }
}

/// Collects what the daemon would have logged.
final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    var lines: [String] { lock.withLock { stored } }
    var log: DaemonLog { DaemonLog { line in self.lock.withLock { self.stored.append(line) } } }
}
