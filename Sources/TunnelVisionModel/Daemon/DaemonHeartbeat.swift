import Foundation

/// What the daemon tells tvctl every second: that it runs, and what it has seen.
public struct DaemonHeartbeat: Sendable, Hashable {
    public var at: Date
    public var pid: Int32
    public var captureRunID: Int64?
    public var input: String
    public var packetsSeen: UInt64
    public var bytesSeen: UInt64
    public var packetsRecorded: UInt64
    /// Recorded without bytes: capture off, or the capture file could not be written.
    public var packetsNotCaptured: UInt64
    /// Forwarded but not recorded at all: the recording queue was full.
    public var packetsDropped: UInt64
    public var queueDepth: Int
    /// Bytes held by the capture directory's files.
    public var captureBytes: UInt64
    /// The relay's connections open now, and those reset at its ceiling in this run; nil without a relay.
    public var relayConnections: Int?
    public var relayRefusedAtCeiling: UInt64?
    /// Relay reports that matched no flow of the tap (their facts are not in the history).
    public var relayReportsUnmatched: UInt64?

    public init(
        at: Date, pid: Int32, captureRunID: Int64?, input: String, packetsSeen: UInt64 = 0, bytesSeen: UInt64 = 0,
        packetsRecorded: UInt64 = 0, packetsNotCaptured: UInt64 = 0, packetsDropped: UInt64 = 0, queueDepth: Int = 0,
        captureBytes: UInt64 = 0
    ) {
        self.at = at
        self.pid = pid
        self.captureRunID = captureRunID
        self.input = input
        self.packetsSeen = packetsSeen
        self.bytesSeen = bytesSeen
        self.packetsRecorded = packetsRecorded
        self.packetsNotCaptured = packetsNotCaptured
        self.packetsDropped = packetsDropped
        self.queueDepth = queueDepth
        self.captureBytes = captureBytes
    }
}
