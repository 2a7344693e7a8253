import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionRetention

// Every sentence the daemon writes to its log while it runs, in one place; the line it prints
// when it cannot start is the runtime's (TunnelVisionDaemon's DaemonStartSentences.swift).

/// What the daemon writes to its log (standard error, which systemd hands to the journal).
public enum DaemonMessage: Sendable, Hashable {
    case started(input: String, captureRun: Int64, directory: String)
    case closedInterruptedSessions([Int64])
    /// Issue 15: what a session's last tally left unaccounted, counted at the next start.
    case lostWithoutCleanStop(captureRun: Int64, packets: UInt64)
    case cutTornTail(path: String, bytes: UInt64)
    case sealFailed(path: String, cause: String)
    case sealedAtStart(path: String)
    case adoptedUnrecordedFile(path: String)
    case captureSuspended(cause: String)
    case captureResumed(notCaptured: UInt64)
    case batchRefused(cause: String)
    case recorderBehind(packets: UInt64)
    case recorderStuck(waitedMilliseconds: Int)
    case recorderCaughtUp(afterNanoseconds: Int64, forwarded: UInt64, withoutRow: UInt64)
    case recorderStuckAtStop(afterNanoseconds: Int64, forwarded: UInt64, withoutRow: UInt64)
    case retentionDeleted(files: Int, bytesAfter: UInt64)
    case retentionShortfall(RetentionShortfall)
    case retentionFailed(cause: String)
    /// A `capture_files` row that names something other than a capture file of the folder.
    case captureFileRowRefused(sequence: UInt32, path: String, folder: String)
    case heartbeatFailed(cause: String)
    case stopping(signal: Int32)
    case stopped(packets: UInt64, notCaptured: UInt64)
    case imported(path: String, packets: Int, flows: Int)
    case relayStarted(port: UInt16, ports: [UInt16], caFingerprint: String, ceiling: Int)
    case relayUpdatesLost(Int)
    /// The relay reached its connection ceiling for the first time in this run.
    case relayAtCeiling(connections: Int, reserve: Int)
    /// The first relay report that found no flow of the tap in this run.
    case relayReportUnmatched
    case impossibleTimestamps(path: String, records: Int)
    /// How the TUN device hands packets over: with segmentation offload (for UDP too, or not),
    /// or one packet per read, by the configuration or because the kernel refused the offload.
    case tunOffload(device: String, udp: Bool)
    case tunPlain(device: String, refusedErrno: Int32?)
    /// The first packet of a run whose virtio-net header did not fit it, and at the stop how many.
    case offloadHeaderNotUnderstood(device: String)
    case offloadHeadersNotUnderstood(device: String, packets: UInt64)

    public var text: String {
        switch self {
        case .started(let input, let session, let directory):
            "capturing from \(input) as capture session \(session), files in \(directory)"
        case .closedInterruptedSessions(let ids):
            "capture session \(ids.map(String.init).joined(separator: ", ")) ended without a stop; closed at its last packet"
        case .lostWithoutCleanStop(let session, let packets):
            "capture session \(session) lost at least \(packets) packets the tap had handed over, queued or in a batch not yet "
                + "committed when the daemon stopped; counted as daemonStopped"
        case .cutTornTail(let path, let bytes):
            "\(path) ended inside a record after a crash; cut back to \(bytes) bytes"
        case .sealFailed(let path, let cause):
            "could not seal \(path) into the chain over the capture files (\(cause)); an export of its packets will refuse it"
        case .sealedAtStart(let path):
            "\(path) was not finished by the last run; its digest was taken from the file now and sealed as recovered"
        case .adoptedUnrecordedFile(let path):
            "\(path) was opened by the last run after its last commit, so the history had no row for it; the row was made now"
        case .captureSuspended(let cause):
            "cannot write the capture (\(cause)); packets are recorded as not captured until it works again"
        case .captureResumed(let count):
            "capture resumed; \(count) packets in between were recorded as not captured"
        case .batchRefused(let cause):
            "the history refused a batch (\(cause)); its packet rows are lost and counted as batchFailed, their bytes stay in the capture file"
        case .recorderBehind(let packets):
            "the recorder fell behind: \(packets) packets in the last second were forwarded and stored as not captured"
        case .recorderStuck(let waited):
            "the recorder freed no queue slot for \(waited) ms: packets are forwarded without waiting for it, kept as rows without bytes "
                + "(or, when not even a row fits, counted as queueFull in packet_losses), until it has caught up"
        case .recorderCaughtUp(let nanoseconds, let forwarded, let withoutRow):
            "the recorder caught up after \(Self.seconds(nanoseconds)) s; meanwhile \(forwarded) packets were forwarded without waiting: "
                + "\(forwarded - min(forwarded, withoutRow)) kept as rows without bytes, \(withoutRow) without a row (counted as queueFull in packet_losses); "
                + "packets wait for a slot again"
        case .recorderStuckAtStop(let nanoseconds, let forwarded, let withoutRow):
            "the tap stopped while the recorder was stuck, for \(Self.seconds(nanoseconds)) s; meanwhile \(forwarded) packets were "
                + "forwarded without waiting: \(forwarded - min(forwarded, withoutRow)) kept as rows without bytes, \(withoutRow) "
                + "without a row (counted as queueFull in packet_losses)"
        case .retentionDeleted(let files, let bytes):
            "retention deleted \(files) capture files; \(bytes) bytes of captures remain"
        case .retentionShortfall(.sizeCapHeldByEvidence(let evidence, let total)):
            "captures take \(total) bytes, above the size limit: \(evidence) bytes are audit evidence, which is kept until its session is deleted"
        case .retentionShortfall(.sizeCapHeldByNewestFile(let total)):
            "captures take \(total) bytes, above the size limit, all in the file being written"
        case .retentionShortfall(.evidenceUnknown):
            "which capture files are audit evidence could not be read; nothing was deleted"
        case .retentionFailed(let cause):
            "retention could not run (\(cause)); nothing was deleted"
        case .captureFileRowRefused(let sequence, let path, let folder):
            "capture file row \(sequence) names \(path), which is not a capture file of \(folder); it was neither deleted nor cut, "
                + "and the row is left for an administrator to look at (the history is the group's to write)"
        case .heartbeatFailed(let cause):
            "cannot write the status heartbeat (\(cause))"
        case .stopping(let signal):
            "stopping on signal \(signal)"
        case .stopped(let packets, let notCaptured):
            "stopped after \(packets) packets (\(notCaptured) not captured)"
        case .imported(let path, let packets, let flows):
            "imported \(path): \(packets) packets, \(flows) flows"
        case .relayStarted(let port, let ports, let fingerprint, let ceiling):
            "TLS inspection on: the relay listens on port \(port) for TCP to \(ports.map(String.init).joined(separator: ", ")), CA SHA-256 \(fingerprint), at most \(ceiling) connections at once"
        case .relayUpdatesLost(let count):
            "\(count) messages of the relay were not recorded: the recorder was behind, or they named a flow the tap never saw"
        case .relayAtCeiling(let connections, let reserve):
            "the relay holds \(connections) connections, its ceiling (\(reserve) descriptors are kept for the recorder): the phone's further connections are reset until some end; tvctl status counts them"
        case .relayReportUnmatched:
            "a report of the relay matched no flow the tap saw, so its facts are not in the history; tvctl status counts such reports"
        case .impossibleTimestamps(let path, let records):
            "\(path) has \(records) records whose timestamp is no instant between 1970 and 2262; they were counted and not imported"
        case .tunOffload(let device, let udp):
            "\(device) hands over packets with segmentation offload: TCP\(udp ? " and UDP" : "") super-packets of up to 64 KiB in one read, "
                + "each forwarded whole and captured as the segments the wire carried"
                + (udp ? "" : "; the kernel refused it for UDP, whose datagrams come one per read")
        case .tunPlain(let device, let refusedErrno):
            "\(device) hands over one packet per read, as the wire carries it: "
                + (refusedErrno.map { "the kernel refused segmentation offload (\(String(cString: strerror($0))))" }
                    ?? "segmentation offload is off in the configuration")
        case .offloadHeaderNotUnderstood(let device):
            "\(device) handed over a packet whose virtio-net header does not fit it; it was forwarded as it came and captured whole, "
                + "not cut into segments (a frame that may be longer than the MTU, its checksum as the kernel left it); "
                + "such packets are counted and the count is said at the stop"
        case .offloadHeadersNotUnderstood(let device, let packets):
            "\(device) handed over \(packets) packets whose virtio-net header did not fit them in this run; each was forwarded "
                + "as it came and captured whole, not cut into segments"
        }
    }
}

extension DaemonMessage {
    /// Seconds with one decimal, as the log states a spell's length.
    static func seconds(_ nanoseconds: Int64) -> String {
        let tenths = max(0, nanoseconds) / 100_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}

/// How much a line matters, numbered as syslog does: journald reads a leading "<N>" as the
/// line's priority, so `journalctl -p err` shows what needs a person and nothing routine.
public enum DaemonLogPriority: Int, Sendable, Hashable {
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
}

extension DaemonMessage {
    /// An error loses or risks evidence; a warning is evidence kept with a gap said; the rest is routine.
    public var priority: DaemonLogPriority {
        switch self {
        case .captureSuspended, .batchRefused, .sealFailed, .retentionFailed, .captureFileRowRefused, .heartbeatFailed, .relayUpdatesLost, .lostWithoutCleanStop: .error
        case .relayAtCeiling, .relayReportUnmatched, .offloadHeaderNotUnderstood, .offloadHeadersNotUnderstood: .warning
        case .closedInterruptedSessions, .cutTornTail, .sealedAtStart, .adoptedUnrecordedFile, .recorderBehind, .recorderStuck, .recorderCaughtUp, .recorderStuckAtStop, .retentionShortfall, .impossibleTimestamps: .warning
        case .captureResumed, .stopping: .notice
        case .tunPlain(_, let refused): refused == nil ? .info : .notice
        case .started, .retentionDeleted, .stopped, .imported, .relayStarted, .tunOffload: .info
        }
    }
}

/// Where the daemon's sentences go: standard error, which systemd hands to the journal. Under
/// the journal each line carries its priority and no name (the journal adds the unit's); on a
/// terminal it starts with the daemon's name instead.
public struct DaemonLog: Sendable {
    private let sink: @Sendable (DaemonLogPriority, String) -> Void

    public init(sink: @escaping @Sendable (DaemonLogPriority, String) -> Void = DaemonLog.standardError) {
        self.sink = sink
    }

    public func say(_ message: DaemonMessage) { sink(message.priority, message.text) }

    /// The one line of a daemon that cannot start.
    public func fail(_ sentence: String) { sink(.error, sentence) }

    public static let standardError: @Sendable (DaemonLogPriority, String) -> Void = {
        let journal = standardErrorIsTheJournal(ProcessInfo.processInfo.environment["JOURNAL_STREAM"])
        return { priority, text in
            let line = journal
                ? text.split(separator: "\n", omittingEmptySubsequences: false).map { "<\(priority.rawValue)>\($0)" }.joined(separator: "\n")
                : "tunnelvisiond: " + text
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }()

    /// systemd names the journal's stream as "DEVICE:INODE"; standard error is that stream only
    /// when they match (a shell started from the unit may have redirected it).
    static func standardErrorIsTheJournal(_ stream: String?) -> Bool {
        guard let parts = stream?.split(separator: ":"), parts.count == 2,
              let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}

extension CaptureWriteError {
    /// Why a capture write failed, as a log line quotes it.
    package static func describe(_ error: Error) -> String {
        switch error {
        case CaptureWriteError.noSpace(let directory): "no space left in \(directory)"
        case CaptureWriteError.io(let path, let code): "\(path): \(String(cString: strerror(code)))"
        case CaptureWriteError.sequencesExhausted: "every capture file sequence was used"
        default: String(describing: error)
        }
    }
}
