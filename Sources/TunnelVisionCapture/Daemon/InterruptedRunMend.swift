import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionModel

/// What a start does for the capture files of a run that ended without a stop.
enum InterruptedRunMend {
    /// A crash leaves the last file without an end, possibly inside a record: cut the torn tail
    /// so every reader accepts the file, and close its row at what the file now holds.
    /// Only capture files of the configured folder are cut (`CaptureFolder`): a row naming
    /// anything else is said and left alone.
    static func mendFiles(history: CaptureHistory, folder: String, log: DaemonLog) throws {
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
            try history.recordCaptureFile(CaptureFile(sequence: file.sequence, path: file.path, createdAt: file.createdAt,
                                                      closedAt: max(modified, file.createdAt), bytes: length))
        }
    }
}
