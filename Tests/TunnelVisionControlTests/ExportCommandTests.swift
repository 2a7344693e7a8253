import CaptureTestSupport
import Foundation
import Testing
import TunnelVisionBuildStamp
import TunnelVisionModel

/// `tvctl export`: the fixture's audit session as a bundle, checked with unzip rather than our reading.
struct ExportCommandTests {
    @Test func anEndedSessionBecomesOneZipWithTheEightFiles() throws {
        let history = try ScratchHistory.seeded()
        let output = history.folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let run = try TVCtlBinary.run(["export", "2", "--output", output.path, "--json"], database: history.path)
        #expect(run.status == 0, "\(run)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let file = try #require(result["file"] as? String)
        #expect(file.hasPrefix(output.path + "/tunnelvision-evidence-session-2-") && file.hasSuffix(".zip"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.path) == [URL(fileURLWithPath: file).lastPathComponent],
                "only the zip is left in the output folder")
        #expect(result["fileNames"] as? [String] == [
            "capture.json", "capture.pcapng", "findings.json", "flows.csv", "flows.json", "manifest.json", "report.pdf", "session.json",
        ])
        #expect(result["flowCount"] as? Int == 10)
        #expect(result["findingCount"] as? Int == 5)
        #expect(result["capture"] as? String == "incomplete")
        #expect(result["packetsRecorded"] as? Int == 20)
        #expect(result["packetsWithoutBytes"] as? [String: Int] == ["notCaptured": 20])

        let unzip = Process()
        unzip.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
        unzip.arguments = ["-tq", file]
        unzip.standardOutput = FileHandle.nullDevice
        try unzip.run()
        unzip.waitUntilExit()
        #expect(unzip.terminationStatus == 0, "unzip -t finds the archive sound")
    }

    @Test func theStagingOfAKilledExportIsRemovedWhenTvctlNextStartsInItsFolder() throws {
        let history = try ScratchHistory.seeded()
        // 2147483646 is a pid no process has; the test's own pid stands for an export still running.
        let killed = history.folder.appendingPathComponent(".tunnelvision-export-2147483646-deadbeef")
        let running = history.folder.appendingPathComponent(".tunnelvision-export-\(getpid())-cafef00d")
        for staging in [killed, running] {
            try FileManager.default.createDirectory(at: staging.appendingPathComponent("half-a-bundle"), withIntermediateDirectories: true)
        }
        let run = try TVCtlBinary.run(["--version"], in: history.folder)
        #expect(run.status == 0, "\(run)")
        #expect(!FileManager.default.fileExists(atPath: killed.path))
        #expect(FileManager.default.fileExists(atPath: running.path))
    }

    @Test func versionNamesTheReleaseAndTheCommitTheBinaryWasBuiltFrom() throws {
        let run = try TVCtlBinary.run(["--version"])
        #expect(run.status == 0, "\(run)")
        #expect(run.output == "tvctl \(BuildStamp.version)\n")
        #expect(BuildStamp.version == "\(TunnelVisionBuild.version)+\(BuildStamp.commit)")
        // The independent reading: git itself, where the tests run in a checkout.
        guard let git = try? CaptureTestSupport.run("git", ["-C", TVCtlBinary.repository.path, "rev-parse", "--short=12", "HEAD"]),
              git.status == 0 else {
            print("skipped: no git checkout to compare the commit with")
            return
        }
        let head = git.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(BuildStamp.commit.hasPrefix(head), "\(BuildStamp.commit) vs \(head)")
    }

    @Test func theHumanAnswerSaysWhereAndWhatTheCaptureHolds() throws {
        let history = try ScratchHistory.seeded()
        let run = try TVCtlBinary.run(["export", "1", "--output", history.folder.path], database: history.path)
        #expect(run.status == 0, "\(run)")
        #expect(run.output.hasPrefix("Exported session 1 to \(history.folder.path)/tunnelvision-evidence-session-1-"))
        #expect(run.output.hasSuffix(
            "): 4 flows, 3 findings; capture: 0 of 8 packets written, 8 never captured; not signed: this gateway has no signing key ('sudo tvctl key create').\n"))
        #expect(!run.output.contains("\u{1B}["), "no progress line off a terminal")
    }

    @Test func anOpenSessionIsRefusedBeforeAnythingIsWritten() throws {
        let history = try MarkTests.recording()
        let run = try TVCtlBinary.run(["export", "3", "--output", history.folder.path], database: history.path)
        #expect(run.status == 1)
        #expect(run.error == "tvctl: Session 3 is still recording: end it with 'tvctl session end 3' before exporting.\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: history.folder.path).allSatisfy { !$0.hasSuffix(".zip") })
    }

    @Test func anOutputThatIsNotAFolderIsRefused() throws {
        let history = try ScratchHistory.seeded()
        let missing = history.folder.appendingPathComponent("nowhere").path
        let run = try TVCtlBinary.run(["export", "2", "--output", missing], database: history.path)
        #expect(run.status == 1)
        #expect(run.error == "tvctl: \(missing) is not a folder you may write to: name another with --output.\n")
    }

    /// The exporter reads the store the library opened: a mistyped history is refused as every
    /// command refuses it, and no empty database is left behind the path.
    @Test func aHistoryThatIsNotThereIsRefusedAndNotCreated() throws {
        let history = try ScratchHistory()
        let run = try TVCtlBinary.run(["export", "2", "--output", history.folder.path], database: history.path)
        #expect(run.status == 3)
        #expect(run.error == "tvctl: There is no history at \(history.path): start tunnelvisiond, or name the database with --db or TUNNELVISION_DB.\n")
        #expect(!FileManager.default.fileExists(atPath: history.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: history.folder.path) == [])
    }

    @Test func aSessionThatDoesNotExistIsRefused() throws {
        let history = try ScratchHistory.seeded()
        let run = try TVCtlBinary.run(["export", "9", "--output", history.folder.path], database: history.path)
        #expect(run.status == 1)
        #expect(run.error == "tvctl: There is no session 9: 'tvctl session list' shows the sessions there are.\n")
    }
}

