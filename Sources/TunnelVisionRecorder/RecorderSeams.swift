import Foundation
import TunnelVisionModel
import TunnelVisionStore

/// What the recorder needs of the history, named as `History` names it. Tests run the recorder
/// on a real store; the protocol lets them watch the order of calls as well.
public protocol CaptureHistory: AnyObject {
    @discardableResult func closeInterruptedCaptureRuns() throws -> [Int64]
    /// The last `TapTally` the recorder wrote for a capture session: what the next start counts as
    /// lost when the session ended without a stop.
    func tally(ofCaptureRun id: Int64) throws -> TapTally?
    func beginCaptureRun(toolVersion: String, input: String, at date: Date) throws -> CaptureRun
    func endCaptureRun(id: Int64, at date: Date) throws
    /// One transaction; flows are tagged with their phone's open recording in the statement that
    /// writes them, unless `tagging` says never; the capture session's tally, when given, with them.
    func write(_ batch: HistoryBatch, captureRun: Int64, tagging: RecordingTagging, tally: TapTally?) throws -> [FlowHandle: Int64]
    func recordCaptureFile(_ file: CaptureFile) throws
    /// The chain over the capture files, oldest link first, and a new link at its end, made from
    /// the last one inside the transaction that appends it.
    func captureSeals() throws -> [CaptureSeal]
    func appendCaptureSeal(_ make: (CaptureSeal?) throws -> CaptureSeal) throws
    func captureFiles() throws -> [CaptureFile]
    func deleteCaptureFile(sequence: UInt32) throws
    func highestCaptureFileSequence() throws -> UInt32
    func auditEvidenceFileSequences() throws -> Set<UInt32>
    @discardableResult func prune(before date: Date) throws -> Int
    func saveDaemonSettings(_ settings: DaemonSettings, at date: Date) throws
    func recordHeartbeat(_ beat: DaemonHeartbeat) throws
    /// Moves the write-ahead log into the main file, at a clean stop and an import's end.
    func checkpoint() throws
    func recordPacketLoss(_ packets: UInt64, reason: PacketLossReason, captureRun: Int64, at date: Date) throws
    func recordTapDrops(_ drops: PassiveTapDrops, captureRun: Int64) throws
    /// The losses counted since the last tally and the tally that accounts for them, in one transaction.
    func recordTally(_ tally: TapTally, losses: [PacketLossReason: UInt64], captureRun: Int64) throws
}

extension History: CaptureHistory {}

/// What the recorder needs of the flow engine. Packets arrive as raw IP (link type 101).
public protocol PacketEngine: AnyObject {
    func process(packet: UnsafeRawBufferPointer, wireLength: Int, timestampNanoseconds: Int64, location: CaptureLocation)
    func takeBatch(now: Int64) -> HistoryBatch
    func assign(rows: [FlowHandle: Int64], of batch: HistoryBatch)
    /// Ends every live flow: the last batch of a capture session.
    func finishAll() -> HistoryBatch
    /// Facts that exist nowhere else wait for the next batch (the relay's reports): the recorder
    /// commits at once rather than at its cadence, so that a crash cannot take them.
    var hasFactsToKeep: Bool { get }
}

extension PacketEngine {
    public var hasFactsToKeep: Bool { false }
}
