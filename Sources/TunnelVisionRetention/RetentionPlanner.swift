import Foundation
import TunnelVisionModel

/// The storage limits of the daemon's configuration (Settings → Storage on iOS).
/// Age is kept in whole days, as `keep_days` says it, so that what the daemon publishes is the
/// number it was given rather than a duration divided back.
public struct RetentionLimits: Sendable, Hashable {
    public var keepDays: Int
    public var maximumBytes: UInt64

    public init(keepDays: Int = 7, maximumBytes: UInt64 = 1_000_000_000) {
        self.keepDays = keepDays
        self.maximumBytes = maximumBytes
    }

    public var maximumAge: TimeInterval { TimeInterval(keepDays) * 86_400 }
}

/// Why a plan leaves more behind than the limits ask for.
public enum RetentionShortfall: Sendable, Hashable {
    /// Audit evidence is exempt, and what it holds alone keeps the total above the size limit.
    case sizeCapHeldByEvidence(evidenceBytes: UInt64, totalBytes: UInt64)
    /// The file being written is never deleted, and it alone keeps the total above the limit.
    case sizeCapHeldByNewestFile(totalBytes: UInt64)
    /// Which files are evidence could not be read, so nothing may be deleted.
    case evidenceUnknown
}

/// What one run of retention does: the files to delete, and what it could not bring under the
/// limits and why.
public struct RetentionPlan: Sendable, Hashable {
    public let deletions: [CaptureFile]
    public let shortfall: RetentionShortfall?
    public let bytesAfter: UInt64
}

/// Decides, with nobody watching, which capture files leave the disk. Evidence — any file
/// holding bytes of an audit session that still exists — never enters a plan, and neither does
/// the newest file, which is still being written.
public enum RetentionPlanner {
    public static func plan(
        files: [CaptureFile],
        evidence: Result<Set<UInt32>, some Error>,
        limits: RetentionLimits,
        now: Date
    ) -> RetentionPlan {
        let total = files.reduce(UInt64(0)) { $0 &+ $1.bytes }
        guard case .success(let evidenceSequences) = evidence else {
            return RetentionPlan(deletions: [], shortfall: .evidenceUnknown, bytesAfter: total)
        }
        let newest = files.map(\.sequence).max()
        let candidates = files
            .filter { !evidenceSequences.contains($0.sequence) && $0.sequence != newest }
            .sorted { $0.sequence < $1.sequence }

        let oldestKept = now.addingTimeInterval(-limits.maximumAge)
        var deletions = candidates.filter { ($0.closedAt ?? $0.createdAt) < oldestKept }
        var remaining = total &- deletions.reduce(UInt64(0)) { $0 &+ $1.bytes }
        for file in candidates where remaining > limits.maximumBytes && !deletions.contains(file) {
            deletions.append(file)
            remaining -= file.bytes
        }

        var shortfall: RetentionShortfall?
        if remaining > limits.maximumBytes {
            let evidenceBytes = files.filter { evidenceSequences.contains($0.sequence) }.reduce(UInt64(0)) { $0 &+ $1.bytes }
            shortfall = evidenceBytes > 0
                ? .sizeCapHeldByEvidence(evidenceBytes: evidenceBytes, totalBytes: remaining)
                : .sizeCapHeldByNewestFile(totalBytes: remaining)
        }
        return RetentionPlan(deletions: deletions.sorted { $0.sequence < $1.sequence }, shortfall: shortfall, bytesAfter: remaining)
    }
}
