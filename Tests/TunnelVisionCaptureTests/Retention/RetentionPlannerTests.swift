import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionRetention

private let day: TimeInterval = 24 * 3600
private let now = Date(timeIntervalSince1970: 1_764_504_000)

/// A file closed `age` days ago holding `megabytes` MB, sequence `sequence`.
private func file(_ sequence: UInt32, daysOld age: Double, megabytes: UInt64) -> CaptureFile {
    CaptureFile(sequence: sequence, path: "/captures/\(sequence).pcap", createdAt: now.addingTimeInterval(-age * day - 60),
                closedAt: now.addingTimeInterval(-age * day), bytes: megabytes * 1_000_000)
}

private struct EvidenceUnreadable: Error {}

struct RetentionCase: Sendable, CustomTestStringConvertible {
    let name: String
    let files: [CaptureFile]
    let evidence: Set<UInt32>?
    let limits: RetentionLimits
    let deleted: [UInt32]
    let shortfall: RetentionShortfall?
    var testDescription: String { name }
}

private let limits = RetentionLimits(keepDays: 7, maximumBytes: 1_000_000_000)

@Suite struct RetentionPlannerTests {
    static let cases: [RetentionCase] = [
        RetentionCase(name: "nothing to do under both limits",
                      files: [file(1, daysOld: 2, megabytes: 64), file(2, daysOld: 1, megabytes: 64)],
                      evidence: [], limits: limits, deleted: [], shortfall: nil),
        RetentionCase(name: "files older than a week go",
                      files: [file(1, daysOld: 9, megabytes: 64), file(2, daysOld: 8, megabytes: 64), file(3, daysOld: 6, megabytes: 64), file(4, daysOld: 0, megabytes: 1)],
                      evidence: [], limits: limits, deleted: [1, 2], shortfall: nil),
        RetentionCase(name: "the newest file is never aged out",
                      files: [file(5, daysOld: 30, megabytes: 1)],
                      evidence: [], limits: limits, deleted: [], shortfall: nil),
        RetentionCase(name: "evidence older than a week stays",
                      files: [file(1, daysOld: 9, megabytes: 64), file(2, daysOld: 8, megabytes: 64), file(3, daysOld: 0, megabytes: 1)],
                      evidence: [1], limits: limits, deleted: [2], shortfall: nil),
        RetentionCase(name: "over the size limit the oldest go first until it holds",
                      files: (1...20).map { file($0, daysOld: Double(20 - Int($0)) * 0.1, megabytes: 64) },
                      evidence: [], limits: limits, deleted: [1, 2, 3, 4, 5], shortfall: nil),
        RetentionCase(name: "the size limit skips evidence and takes the next oldest",
                      files: (1...20).map { file($0, daysOld: Double(20 - Int($0)) * 0.1, megabytes: 64) },
                      evidence: [1, 3], limits: limits, deleted: [2, 4, 5, 6, 7], shortfall: nil),
        RetentionCase(name: "evidence alone above the limit is said, with its own cause",
                      files: [file(1, daysOld: 3, megabytes: 700), file(2, daysOld: 2, megabytes: 500), file(3, daysOld: 1, megabytes: 64), file(4, daysOld: 0, megabytes: 10)],
                      evidence: [1, 2], limits: limits, deleted: [3],
                      shortfall: .sizeCapHeldByEvidence(evidenceBytes: 1_200_000_000, totalBytes: 1_210_000_000)),
        RetentionCase(name: "a newest file above the limit on its own is said too",
                      files: [file(1, daysOld: 1, megabytes: 100), file(2, daysOld: 0, megabytes: 1_500)],
                      evidence: [], limits: limits, deleted: [1],
                      shortfall: .sizeCapHeldByNewestFile(totalBytes: 1_500_000_000)),
        RetentionCase(name: "an unreadable evidence list cleans nothing",
                      files: [file(1, daysOld: 30, megabytes: 900), file(2, daysOld: 20, megabytes: 900), file(3, daysOld: 0, megabytes: 1)],
                      evidence: nil, limits: limits, deleted: [], shortfall: .evidenceUnknown),
        RetentionCase(name: "an open file is aged by its creation",
                      files: [CaptureFile(sequence: 1, path: "/captures/1.pcap", createdAt: now.addingTimeInterval(-8 * day), closedAt: nil, bytes: 10),
                              file(2, daysOld: 0, megabytes: 1)],
                      evidence: [], limits: limits, deleted: [1], shortfall: nil),
        RetentionCase(name: "shorter limits from the configuration",
                      files: [file(1, daysOld: 1.5, megabytes: 10), file(2, daysOld: 0.5, megabytes: 10), file(3, daysOld: 0, megabytes: 10)],
                      evidence: [], limits: RetentionLimits(keepDays: 1, maximumBytes: 15_000_000), deleted: [1, 2], shortfall: nil),
        RetentionCase(name: "no files, no plan", files: [], evidence: [], limits: limits, deleted: [], shortfall: nil),
    ]

    @Test(arguments: cases)
    func plans(_ rule: RetentionCase) {
        let evidence: Result<Set<UInt32>, EvidenceUnreadable> = rule.evidence.map { .success($0) } ?? .failure(EvidenceUnreadable())
        let plan = RetentionPlanner.plan(files: rule.files, evidence: evidence, limits: rule.limits, now: now)
        #expect(plan.deletions.map(\.sequence) == rule.deleted)
        #expect(plan.shortfall == rule.shortfall)
        let kept = rule.files.filter { !rule.deleted.contains($0.sequence) }.reduce(UInt64(0)) { $0 + $1.bytes }
        #expect(plan.bytesAfter == kept)
        #expect(plan.deletions.allSatisfy { !(rule.evidence ?? []).contains($0.sequence) })
    }
}
