import Foundation

/// Every sentence the daemon writes to its log, in one place.
public enum DaemonMessage: Sendable, Hashable {
    case started(input: String, captureSession: Int64, directory: String)
    case closedInterruptedSession
    case cutTornTail(path: String, bytes: UInt64)
    case captureSuspended(cause: String)
    case captureResumed(notCaptured: UInt64)
    case batchRefused(cause: String)
    case recorderBehind(packets: UInt64)
    case retentionDeleted(files: Int, bytesAfter: UInt64)
    case retentionShortfall(RetentionShortfall)
    case retentionFailed(cause: String)
    case heartbeatFailed(cause: String)
    case stopping(signal: Int32)
    case stopped(packets: UInt64, notCaptured: UInt64)

    public var text: String {
        switch self {
        case .started(let input, let session, let directory):
            "capturing from \(input) as capture session \(session), files in \(directory)"
        case .closedInterruptedSession:
            "the previous capture session ended without a stop; it was closed at its last packet"
        case .cutTornTail(let path, let bytes):
            "\(path) ended inside a record after a crash; cut back to \(bytes) bytes"
        case .captureSuspended(let cause):
            "cannot write the capture (\(cause)); packets are recorded as not captured until it works again"
        case .captureResumed(let count):
            "capture resumed; \(count) packets in between were recorded as not captured"
        case .batchRefused(let cause):
            "the history refused a batch (\(cause)); its packet rows are lost, their bytes stay in the capture file"
        case .recorderBehind(let packets):
            "the recorder fell behind: \(packets) packets in the last second were forwarded and stored as not captured"
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
        case .heartbeatFailed(let cause):
            "cannot write the status heartbeat (\(cause))"
        case .stopping(let signal):
            "stopping on signal \(signal)"
        case .stopped(let packets, let notCaptured):
            "stopped after \(packets) packets (\(notCaptured) not captured)"
        }
    }
}

/// Where the daemon's sentences go: standard error, which systemd hands to the journal.
public struct DaemonLog: Sendable {
    private let sink: @Sendable (String) -> Void

    public init(sink: @escaping @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data(("tunnelvisiond: " + line + "\n").utf8))
    }) {
        self.sink = sink
    }

    public func say(_ message: DaemonMessage) { sink(message.text) }
}
