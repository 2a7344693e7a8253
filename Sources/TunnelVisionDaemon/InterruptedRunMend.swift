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
        let open = try history.captureFiles().filter { $0.closedAt == nil }
        guard !open.isEmpty, let captures = try? CaptureFolder(path: folder) else { return }
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
}
