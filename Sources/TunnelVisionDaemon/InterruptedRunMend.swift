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
    /// on disk with no row: its packets would be in no bundle and its tail never cut. That file is
    /// the one of the next sequence, and the daemon made it: only such a file gets its row here
    /// (the folder is the group's to write, and a file a member put there must not be sealed into
    /// the chain as the daemon's). The mend above then treats it as any file left open.
    private static func adoptUnrecorded(
        after known: [CaptureFile], in captures: CaptureFolder, history: CaptureHistory, log: DaemonLog
    ) throws -> [CaptureFile] {
        let highest = known.map(\.sequence).max() ?? 0
        guard highest < UInt32.max,
              let (name, sequence) = CaptureFileName.files(inDirectory: captures.path).first(where: { $0.sequence == highest + 1 }),
              let modified = captures.modifiedIfOwn(name) else { return [] }
        let createdAt = CaptureFileName.createdAt(in: name) ?? modified
        let file = CaptureFile(sequence: sequence, path: captures.path + "/" + name, createdAt: createdAt, closedAt: nil, bytes: 0)
        try history.recordCaptureFile(file)
        log.say(.adoptedUnrecordedFile(path: file.path))
        return [file]
    }
}
