import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionDaemonLog
import TunnelVisionModel
import TunnelVisionRecorder

/// What a start does for the capture files of a run that ended without a stop.
enum InterruptedRunMend {
    /// A crash leaves the last file without an end, possibly inside a record: cut the torn tail
    /// so every reader accepts the file, and close its row at what the file now holds.
    /// Only capture files of the configured folder are cut (`CaptureFolder`): a row naming
    /// anything else is said and left alone. Each mended file is sealed then, its digest read
    /// from the file as it now is: the chain says so (origin `recovered`), since what happened to
    /// it between the crash and now is not known.
    static func mendFiles(history: CaptureHistory, folder: String, sealer: CaptureSealer, log: DaemonLog) throws {
        guard let captures = try? CaptureFolder(path: folder) else { return }
        let known = try history.captureFiles()
        let open = try known.filter { $0.closedAt == nil } + adoptUnrecorded(after: known, in: captures, history: history, log: log)
        for file in open {
            guard let name = captures.name(ofRow: file.path) else {
                log.say(.captureFileRowRefused(sequence: file.sequence, path: file.path, folder: captures.path))
                continue
            }
            let length: UInt64
            do {
                let mended = try captures.cutTornTail(name)
                length = mended.length
                if mended.cut > 0 { log.say(.cutTornTail(path: file.path, bytes: length)) }
            } catch {
                continue  // a missing or foreign file keeps its row as it was
            }
            let modified = captures.modified(name) ?? file.createdAt
            let closed = CaptureFile(sequence: file.sequence, path: file.path, createdAt: file.createdAt,
                                     closedAt: max(modified, file.createdAt), bytes: length)
            try history.recordCaptureFile(closed)
            let path = captures.path + "/" + name
            if let digest = try? CaptureFileDigest.sha256(ofFileAt: path), digest.bytes == length {
                try sealer.seal(closed, sha256: digest.sha256, origin: .recovered)
                log.say(.sealedAtStart(path: file.path))
            }
        }
    }

    /// A crash between a rotation and the next commit leaves the file the writer had just opened
    /// on disk with no row: its packets would be in no bundle and its tail never cut. Files of
    /// our form past the highest sequence the history knows get their row here, then the mend
    /// above treats them as any file left open.
    private static func adoptUnrecorded(
        after known: [CaptureFile], in captures: CaptureFolder, history: CaptureHistory, log: DaemonLog
    ) throws -> [CaptureFile] {
        let highest = known.map(\.sequence).max() ?? 0
        var adopted: [CaptureFile] = []
        for (name, sequence) in CaptureFileName.files(inDirectory: captures.path).sorted(by: { $0.sequence < $1.sequence })
        where sequence > highest {
            // A link or anything but a regular file is not adopted (as cutting never follows one).
            guard let modified = captures.modified(name) else { continue }
            let createdAt = CaptureFileName.createdAt(in: name) ?? modified
            let file = CaptureFile(sequence: sequence, path: captures.path + "/" + name, createdAt: createdAt, closedAt: nil, bytes: 0)
            try history.recordCaptureFile(file)
            log.say(.adoptedUnrecordedFile(path: file.path))
            adopted.append(file)
        }
        return adopted
    }
}
