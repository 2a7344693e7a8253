import Foundation
import TunnelVisionModel

/// What the recorder needs of the history: the store's own calls, named as the store names them,
/// so that `FlowStore` conforms with nothing in between.
public protocol CaptureHistory: AnyObject {
    func closeInterruptedCaptureSessions() throws
    func beginCaptureSession(toolVersion: String, input: String, at instant: Date) throws -> CaptureSession
    func endCaptureSession(id: Int64, at instant: Date) throws
    /// One transaction; flows are tagged with the open audit session in the statement that writes them.
    func write(_ batch: HistoryBatch, captureSession: Int64) throws -> [FlowHandle: Int64]
    func recordCaptureFile(_ file: CaptureFile) throws
    func captureFiles() throws -> [CaptureFile]
    func deleteCaptureFile(sequence: UInt32) throws
    func highestCaptureFileSequence() throws -> UInt32
    func auditEvidenceFileSequences() throws -> Set<UInt32>
    func prune(before instant: Date) throws
    func saveDaemonSettings(_ settings: [String: String], at instant: Date) throws
    func recordStatus(_ status: RecorderStatus) throws
}

/// What the recorder needs of the flow engine. Packets arrive as raw IP (link type 101).
public protocol PacketEngine: AnyObject {
    func process(packet: UnsafeRawBufferPointer, wireLength: Int, timestampNanoseconds: Int64, location: CaptureLocation)
    func takeBatch(now: Int64) -> HistoryBatch
    func assign(rows: [FlowHandle: Int64])
}

/// The once-a-second status the daemon leaves in the database, so that `tvctl status` can
/// tell a live capture from a dead one.
public struct RecorderStatus: Sendable, Hashable {
    public var at: Date
    public var captureSessionID: Int64
    public var input: String
    public var packetsSeen: UInt64 = 0
    public var bytesSeen: UInt64 = 0
    /// Packets whose bytes are in a capture file.
    public var recorded: UInt64 = 0
    /// Packets stored as rows without bytes (file 0): queue full or capture directory unusable.
    public var notCaptured: UInt64 = 0
    /// Packets that found the recorder's queue full: forwarded, and stored as not captured.
    public var dropped: UInt64 = 0
    /// Packets for which not even a row could be kept.
    public var unrecorded: UInt64 = 0
    /// Batches the history refused; their rows are lost, their bytes stay in the capture file.
    public var failedBatches: UInt64 = 0
    public var queueDepth: Int = 0
}
