import Foundation
import TunnelVisionModel
import TunnelVisionStore

#if canImport(Glibc)
import Glibc
#endif

/// What `tvctl status` knows, read from the history: the daemon's heartbeat and settings, the
/// capture session it writes, the recording, and the disk.
struct DaemonStatus {
    /// A heartbeat older than this means the daemon is not running: it beats every second.
    static let silenceLimit: TimeInterval = 10

    let heartbeat: DaemonHeartbeat?
    let captureRun: CaptureRun?
    let inspectionEnabled: Bool
    /// The CA the running relay signs with; nil when it was not running with one.
    let inspectingCAFingerprint: String?
    let relayPort: UInt16?
    /// What the inline tap does when the recorder is behind; nil from a daemon before it.
    let recorderBacklog: RecorderBacklog?
    let recorderWaitMilliseconds: Int?
    /// Every open recording (one per phone), oldest first, with its flow count.
    let recordings: [(recording: RecordingWithProject, flows: Int)]
    var recording: RecordingWithProject? { recordings.first?.recording }
    var recordingFlows: Int { recordings.first?.flows ?? 0 }
    let captureFiles: [CaptureFile]
    let historyBytes: UInt64
    let freeBytes: UInt64?

    func isRunning(at now: Date) -> Bool {
        guard let heartbeat else { return false }
        return now.timeIntervalSince(heartbeat.at) <= Self.silenceLimit
    }

    static func read(library: ControlLibrary) throws(ControlError) -> DaemonStatus {
        let location = library.location
        return try library.visit { store in
            // Settings that cannot be read count as inspection off, as they do for the daemon.
            let settings = try? store.daemonSettings()
            // Its own read: the store's reads cannot nest inside one another.
            let heartbeat = try store.latestHeartbeat()
            return try store.reading { snapshot in
                let capture = try heartbeat?.captureRunID.flatMap { id in
                    try snapshot.captureRuns().first { $0.id == id }
                }
                let recordings = try snapshot.auditRecordings().map {
                    (recording: $0, flows: try snapshot.flowCount(inRecording: $0.session.id))
                }
                return DaemonStatus(
                    heartbeat: heartbeat, captureRun: capture,
                    inspectionEnabled: settings?.inspectionEnabled ?? false,
                    inspectingCAFingerprint: settings?.inspectingCAFingerprint, relayPort: settings?.relayPort,
                    recorderBacklog: settings?.recorderBacklog, recorderWaitMilliseconds: settings?.recorderWaitMilliseconds,
                    recordings: recordings,
                    captureFiles: try snapshot.captureFiles(),
                    historyBytes: fileBytes(location.path) + fileBytes(location.path + "-wal"),
                    freeBytes: freeBytes(in: location.directory))
            }
        }
    }

    /// Packets and bytes per second between two heartbeats, or since the capture session began.
    struct Rates: Equatable {
        let packetsPerSecond: Double
        let bytesPerSecond: Double
        /// "heartbeats" or "captureSession".
        let basis: String
    }

    static func rates(between earlier: DaemonHeartbeat?, and later: DaemonHeartbeat?, captureRun: CaptureRun?) -> Rates? {
        guard let later else { return nil }
        if let earlier, later.at > earlier.at, later.captureRunID == earlier.captureRunID,
           later.packetsSeen >= earlier.packetsSeen, later.bytesSeen >= earlier.bytesSeen {
            let seconds = later.at.timeIntervalSince(earlier.at)
            return Rates(
                packetsPerSecond: Double(later.packetsSeen - earlier.packetsSeen) / seconds,
                bytesPerSecond: Double(later.bytesSeen - earlier.bytesSeen) / seconds, basis: "heartbeats")
        }
        guard let captureRun, Instant(later.at) > captureRun.startedAt else { return nil }
        let seconds = Instant(later.at).seconds(since: captureRun.startedAt)
        return Rates(
            packetsPerSecond: Double(later.packetsSeen) / seconds, bytesPerSecond: Double(later.bytesSeen) / seconds,
            basis: "captureSession")
    }

    private static func fileBytes(_ path: String) -> UInt64 {
        var status = stat()
        guard stat(path, &status) == 0, status.st_size > 0 else { return 0 }
        return UInt64(status.st_size)
    }

    private static func freeBytes(in directory: String) -> UInt64? {
        var filesystem = statvfs()
        guard statvfs(directory, &filesystem) == 0 else { return nil }
        let (bytes, overflow) = UInt64(filesystem.f_bavail).multipliedReportingOverflow(by: UInt64(filesystem.f_frsize))
        return overflow ? UInt64.max : bytes
    }
}
