import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionDaemonLog
import TunnelVisionModel
import TunnelVisionRetention

/// Applies the retention plan: deletes the planned files and their rows, prunes history rows
/// older than the age limit (tagged flows are kept by the store), and says what it could not do —
/// each shortfall once, not at every rotation.
struct RetentionRunner {
    let limits: RetentionLimits
    /// The configured capture folder: only its capture files are ever deleted.
    let folder: String
    let log: DaemonLog
    private var lastShortfall: RetentionShortfall?
    /// Rows already said to name something else: each is said once, not at every rotation.
    private var refusedRows: Set<UInt32> = []

    init(limits: RetentionLimits, folder: String, log: DaemonLog) {
        self.limits = limits
        self.folder = folder
        self.log = log
    }

    mutating func run(history: CaptureHistory, now: Date) {
        let files: [CaptureFile]
        do { files = try history.captureFiles() } catch {
            log.say(.retentionFailed(cause: String(describing: error)))
            return
        }
        let evidence = Result { try history.auditEvidenceFileSequences() }
        let plan = RetentionPlanner.plan(files: files, evidence: evidence, limits: limits, now: now)
        let captures: CaptureFolder
        do { captures = try CaptureFolder(path: folder) } catch {
            log.say(.retentionFailed(cause: String(describing: error)))
            return
        }
        var deleted = 0
        for file in plan.deletions {
            guard let name = captures.name(ofRow: file.path) else {
                if refusedRows.insert(file.sequence).inserted {
                    log.say(.captureFileRowRefused(sequence: file.sequence, path: file.path, folder: folder))
                }
                continue
            }
            guard captures.remove(name) == 0 else { continue }
            do {
                try history.deleteCaptureFile(sequence: file.sequence)
                deleted += 1
            } catch {
                log.say(.retentionFailed(cause: String(describing: error)))
            }
        }
        if deleted > 0 { log.say(.retentionDeleted(files: deleted, bytesAfter: plan.bytesAfter)) }
        if plan.shortfall != lastShortfall, let shortfall = plan.shortfall { log.say(.retentionShortfall(shortfall)) }
        lastShortfall = plan.shortfall
        guard plan.shortfall != .evidenceUnknown else { return }
        do { try history.prune(before: now.addingTimeInterval(-limits.maximumAge)) } catch {
            log.say(.retentionFailed(cause: String(describing: error)))
        }
    }
}
