import CaptureTestSupport
import Foundation
import Testing
import TunnelVisionCaptureFiles
@testable import TunnelVisionDaemon
@testable import TunnelVisionDaemonLog
import TunnelVisionModel
@testable import TunnelVisionRecorder
@testable import TunnelVisionRetention

/// The history is the group's to write, so a `capture_files` row can name any file: retention
/// deletes only capture files of the configured folder, and says a row that names anything else.
@Suite struct RetentionRunnerTests {
    static let now = Date(timeIntervalSince1970: 1_764_504_000)

    @Test func aRowNamingTheCAKeyIsRefusedAndSaidOnceWhileRealCaptureFilesGo() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("captures"), withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: directory.file("ca"), withIntermediateDirectories: false)
        directory.create("ca/ca.key", bytes: Array("the CA key".utf8))
        let old = Self.now.addingTimeInterval(-30 * 86_400)
        let ours = CaptureFileName.name(sequence: 1, createdAt: old)
        directory.create("captures/" + ours, bytes: [UInt8](repeating: 0, count: 100))
        let history = try WatchedHistory(path: directory.file("history.sqlite"))
        try history.recordCaptureFile(CaptureFile(sequence: 1, path: directory.file("captures/" + ours), createdAt: old, closedAt: old, bytes: 100))
        // Written by a member, as if it were a capture file: old and large, first to go.
        try history.recordCaptureFile(CaptureFile(sequence: 2, path: directory.file("ca/ca.key"), createdAt: old, closedAt: old, bytes: 1 << 30))
        // Of the capture-file form, but reached through the folder's parent.
        let climbing = directory.file("captures/../" + CaptureFileName.name(sequence: 3, createdAt: old))
        directory.create(CaptureFileName.name(sequence: 3, createdAt: old), bytes: [1])
        try history.recordCaptureFile(CaptureFile(sequence: 3, path: climbing, createdAt: old, closedAt: old, bytes: 1))
        // The file being written, which retention never takes.
        let newest = CaptureFileName.name(sequence: 4, createdAt: Self.now)
        directory.create("captures/" + newest, bytes: [1])
        try history.recordCaptureFile(CaptureFile(sequence: 4, path: directory.file("captures/" + newest), createdAt: Self.now, closedAt: nil, bytes: 1))

        let lines = LogLines()
        var runner = RetentionRunner(limits: RetentionLimits(keepDays: 1, maximumBytes: 10), folder: directory.file("captures"), log: lines.log)
        runner.run(history: history, now: Self.now)
        runner.run(history: history, now: Self.now)

        #expect(FileManager.default.contents(atPath: directory.file("ca/ca.key")) == Data("the CA key".utf8))
        #expect(FileManager.default.fileExists(atPath: directory.file(CaptureFileName.name(sequence: 3, createdAt: old))))
        #expect(directory.names(in: "captures") == [newest])
        #expect(history.deletedFiles == [1])
        #expect(try history.captureFiles().map(\.sequence).sorted() == [2, 3, 4])
        let refusal = DaemonMessage.captureFileRowRefused(sequence: 2, path: directory.file("ca/ca.key"), folder: directory.file("captures")).text
        #expect(lines.lines.filter { $0 == refusal }.count == 1)
        #expect(lines.lines.contains { $0.hasPrefix("capture file row 3 names") })
        #expect(refusal.hasPrefix("capture file row 2 names \(directory.file("ca/ca.key")), which is not a capture file of"))
    }
}

/// After a crash, a start cuts the torn tail of the files left open; a row left open that names
/// a file outside the capture folder is neither cut nor closed, and is said. The file here reads
/// as a capture with a torn tail, which is what a cut would act on.
@Suite struct InterruptedRunMendTests {
    @Test func anOpenRowNamingAFileOutsideTheFolderIsNotCutAndIsSaid() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("captures"), withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: directory.file("ca"), withIntermediateDirectories: false)
        let key = PcapFormat.fileHeader(snapshotLength: 65_535) + Array("torn tail".utf8)
        directory.create("ca/ca.key", bytes: key)
        let history = try WatchedHistory(path: directory.file("history.sqlite"))
        let started = RetentionRunnerTests.now
        try history.recordCaptureFile(CaptureFile(sequence: 5, path: directory.file("ca/ca.key"), createdAt: started, closedAt: nil, bytes: 0))

        let lines = LogLines()
        try InterruptedRunMend.mendFiles(history: history, folder: directory.file("captures"),
                                           sealer: CaptureSealer(key: Ed25519Key.generate()!, history: history), log: lines.log)

        #expect(FileManager.default.contents(atPath: directory.file("ca/ca.key")) == Data(key))
        #expect(try history.captureFiles().first?.closedAt == nil)
        #expect(lines.lines == [DaemonMessage.captureFileRowRefused(
            sequence: 5, path: directory.file("ca/ca.key"), folder: directory.file("captures")).text])
    }

    /// The writer opened a file after the last commit and the daemon was killed: the file is on
    /// disk with no row. The start makes its row, cuts its torn tail and seals it as recovered;
    /// a file of a lower sequence without a row (retention's, or anyone's) is left alone.
    @Test func aFileOpenedAfterTheLastCommitGetsItsRowItsCutAndItsSeal() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("captures"), withIntermediateDirectories: false)
        let header = PcapFormat.fileHeader(snapshotLength: 65_535)
        let known = CaptureFileName.name(sequence: 2, createdAt: RetentionRunnerTests.now)
        let older = CaptureFileName.name(sequence: 1, createdAt: RetentionRunnerTests.now)
        let orphan = "tunnelvision-000003-20251130-120005.pcap"
        directory.create("captures/" + known, bytes: header)
        directory.create("captures/" + older, bytes: header)
        directory.create("captures/" + orphan, bytes: header + Array("torn".utf8))
        // Not the next sequence: no writer of this folder opened it after the last commit.
        directory.create("captures/tunnelvision-000009-20251130-120009.pcap", bytes: header)
        let history = try WatchedHistory(path: directory.file("history.sqlite"))
        try history.recordCaptureFile(CaptureFile(
            sequence: 2, path: directory.file("captures/" + known), createdAt: RetentionRunnerTests.now,
            closedAt: RetentionRunnerTests.now, bytes: UInt64(header.count)))

        let lines = LogLines()
        try InterruptedRunMend.mendFiles(history: history, folder: directory.file("captures"),
                                           sealer: CaptureSealer(key: Ed25519Key.generate()!, history: history), log: lines.log)

        let rows = try history.captureFiles()
        #expect(rows.map(\.sequence) == [2, 3])
        let adopted = try #require(rows.last)
        #expect(adopted.path == directory.file("captures/" + orphan))
        #expect(adopted.createdAt == Date(timeIntervalSince1970: 1_764_504_005))
        #expect(adopted.bytes == UInt64(header.count) && adopted.closedAt != nil)
        #expect(FileManager.default.contents(atPath: directory.file("captures/" + orphan)) == Data(header))
        #expect(try history.captureSeals().map { "\($0.sequence) \($0.origin)" } == ["3 recovered"])
        #expect(lines.lines.first == DaemonMessage.adoptedUnrecordedFile(path: adopted.path).text)
    }

    /// The next sequence's file, but another user's (the folder is the group's to write): not
    /// adopted, not sealed.
    @Test func aFileOfAnotherUserIsNotAdopted() throws {
        try #require(geteuid() == 0, "only root can make a file of another user")
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("captures"), withIntermediateDirectories: false)
        let planted = "captures/tunnelvision-000001-20251130-120005.pcap"
        directory.create(planted, bytes: PcapFormat.fileHeader(snapshotLength: 65_535))
        #expect(chown(directory.file(planted), 65_534, 65_534) == 0)
        let history = try WatchedHistory(path: directory.file("history.sqlite"))

        let lines = LogLines()
        try InterruptedRunMend.mendFiles(history: history, folder: directory.file("captures"),
                                           sealer: CaptureSealer(key: Ed25519Key.generate()!, history: history), log: lines.log)

        #expect(try history.captureFiles().isEmpty)
        #expect(try history.captureSeals().isEmpty)
        #expect(lines.lines.isEmpty)
    }
}
