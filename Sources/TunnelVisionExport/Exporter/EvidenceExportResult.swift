import Foundation
import TunnelVisionEvidence
import TunnelVisionStore

public struct EvidenceExportResult: Sendable, Equatable {
    /// The .zip, in the output directory.
    public let url: URL
    public let byteCount: UInt64
    /// The eight files, by name.
    public let fileNames: [String]
    /// The gateway key that signed the manifest; nil: the bundle is not signed.
    public let signatureKeyID: String?
    /// The TSA's reply over the manifest, when one was asked for.
    public let timestamp: TimestampReply?
    public let flowCount: Int
    public let findingCount: Int
    /// capture.json, as written.
    public let capture: EvidenceCaptureDocument
    /// How the archive holds each file, in the order written.
    public let members: [Member]

    public struct Member: Sendable, Equatable {
        public let name: String
        /// Stored as it is; otherwise deflated.
        public let stored: Bool
        public let byteCount: UInt64
        public let compressedCount: UInt64
    }

    public var captureStanding: EvidenceCaptureStanding { capture.standing }
}

/// Why no bundle was written. Nothing is left behind in any case.
public enum EvidenceExportError: Error, Sendable, Equatable {
    case sessionNotFound
    /// A session is exported once it has ended.
    case sessionStillOpen
    /// `--with-keys` for a recording not started with `--keep-keys`: no TLS secrets were kept.
    case keysNotKept
    /// The project names a catalogue that is not installed; none other is used instead.
    case catalogueNotBundled(identifier: String)
    case catalogueUnusable(identifier: String)
    case historyUnreadable(HistoryError)
    /// The history changed under the export (a flow met in the capture was not among those
    /// read): exporting again reads it anew.
    case historyChangedWhileExporting
    case captureDirectoryUnavailable(String)
    /// A capture file the session's packets point at is there but cannot be opened or read
    /// (permissions, I/O; errno): nothing was kept rather than calling its packets unreadable.
    case captureFileUnreadable(path: String, errno: Int32)
    /// A capture file's path names a FIFO, a device or a directory: it was not opened.
    case captureFileNotRegular(path: String)
    /// A capture file (or its link) does not agree with the chain the daemon sealed when it
    /// finished the file: no byte of it was copied.
    case captureNotAsSealed(path: String, CaptureSealMismatch)
    /// The output directory does not exist or cannot be written to.
    case outputUnavailable(String)
    case writeFailed(String)
    /// A bundle of that name is already there: the same session exported in the same second.
    case bundleExists(String)
    /// The gateway key was read and libcrypto did not sign with it: no unsigned bundle is left instead.
    case notSigned
    /// The configured TSA did not answer, refused, or answered for something else: no bundle
    /// claims a timestamp it does not hold (`--no-timestamp` exports without one).
    case notTimestamped(TimestampError)
}

/// How far an export has got, for a progress line on a terminal.
public enum EvidenceExportStep: Sendable, Equatable {
    case readingHistory
    case writingCapture
    case drawingReport
    case compressing(fraction: Double)
    case finished
}
