import ControlFixture
import Foundation
import Synchronization
import Testing
@testable import TunnelVisionControl
import TunnelVisionModel
import TunnelVisionStore

/// What a deliberate attempt to break tvctl found, each fixed where the input enters.
struct HostileInputTests {
    /// tvctl in this process, with the clock and environment a test chooses.
    static func run(
        _ arguments: [String], database: String, clock: Date, tool: ([String], Invocation) -> Int32 = TVCtl.run
    ) -> (status: Int32, error: String) {
        let errors = Mutex("")
        let console = Console(writeOutput: { _ in }, writeError: { text in errors.withLock { $0 += text } },
                              readLine: { nil }, outputIsTerminal: false, inputIsTerminal: false)
        let invocation = Invocation(console: console, environment: ["TUNNELVISION_DB": database], startedAt: clock, clock: { clock })
        let status = tool(arguments, invocation)
        return (status, errors.withLock { $0 })
    }

    // Item 4: a system clock past 2262 trapped `session start` with SIGILL.
    @Test func aClockPastWhatTheHistoryHoldsIsRefusedNotStored() throws {
        let history = try ScratchHistory.seeded()
        let future = Date(timeIntervalSince1970: 9_300_000_000)
        let run = Self.run(["session", "start", "1", "--baseline", "--device", "Pixel 8", "--os", "Android 15"],
                           database: history.path, clock: future)
        #expect(run.status == 2)
        #expect(run.error.contains("is outside what the history can hold (1677-09-22 to 2262-04-11)"), "\(run.error)")
        #expect(try history.open().openRecording() == nil)
        let fixture = Self.run(["--name", "Later"], database: history.path, clock: future, tool: TVFixture.run)
        #expect(fixture.status == 2)
    }
}

/// What is stored already (an older tvctl, a hand-edited history) prints visibly.
struct StoredControlCharacterTests {
    @Test func aStoredEscapeInANameIsShownNotObeyed() throws {
        let history = try ScratchHistory.seeded()
        let store = try history.open()
        _ = try store.createAuditProject(AuditProjectDraft(name: "Evil\u{1B}[2J\u{1B}]0;x\u{07}\u{202E}"), at: Date())
        let run = try TVCtlBinary.run(["project", "list"], database: history.path)
        #expect(run.status == 0)
        #expect(!run.output.unicodeScalars.contains { TerminalText.isUnsafe($0) && $0 != "\n" })
        #expect(run.output.contains("Evil\\u{1B}[2J\\u{1B}]0;x\\u{7}\\u{202E}"))
    }

    @Test func tvctlsOwnColoursStillReachTheTerminal() {
        #expect(TerminalText.forTerminal("\u{1B}[1mID\u{1B}[0m\n") == "\u{1B}[1mID\u{1B}[0m\n")
        #expect(TerminalText.forTerminal("\u{1B}[H\u{1B}[2J\r\u{1B}[K") == "\u{1B}[H\u{1B}[2J\r\u{1B}[K")
        #expect(TerminalText.forTerminal("\u{1B}]0;owned\u{07}\u{202E}x") == "\\u{1B}]0;owned\\u{7}\\u{202E}x")
    }

    @Test func aCommandLineThatIsNotUTF8IsRefusedNotRepaired() {
        #expect(ArgumentText.decode([Array("project".utf8), [0x41, 0xFF]]) == .failure(ArgumentEncodingError(position: 2)))
        #expect(ArgumentText.decode([Array("ä".utf8)]) == .success(["ä"]))
    }
}

/// A seed cut off part-way (a full disk) leaves nothing half-made.
struct FixtureTransactionTests {
    @Test func aFixtureThatFailsPartWayLeavesNoProjectAndNoOpenRecording() throws {
        let history = try ScratchHistory()
        _ = try history.open()
        // The disk "fills" at the audit session's first marker, after the project, the
        // baseline and the audit session are written.
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sqlite.arguments = [history.path, "CREATE TRIGGER full BEFORE INSERT ON audit_markers BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;"]
        try sqlite.run()
        sqlite.waitUntilExit()
        try #require(sqlite.terminationStatus == 0)
        let run = try TVCtlBinary.fixture(["--at", ScratchHistory.fixtureStart], database: history.path)
        #expect(run.status != 0)
        let store = try history.open()
        #expect(try store.auditProjects().isEmpty)
        #expect(try store.openRecording() == nil)
        #expect(try store.captureRuns().isEmpty)
    }
}

/// A newline or an escape stored before input was checked shows
/// visibly in every confirmation sentence too, not only in tables and headings. Each command that
/// quotes a stored name, release or device is run over such a history.
struct StoredControlCharacterConfirmationTests {
    static let name = "Lab\nHealth\u{1B}]0;x\u{07}"
    static let shownName = "Lab\\u{A}Health\\u{1B}]0;x\\u{7}"

    /// A project, and an ended audit session of it on a device, each stored with a newline.
    static func history() throws -> (ScratchHistory, project: Int64, session: Int64) {
        let history = try ScratchHistory.seeded()
        let store = try history.open()
        let project = try store.createAuditProject(AuditProjectDraft(name: name), at: Date())
        let start = Date()
        var draft = sessionDraft(project: project.id, kind: release("3.0\n1", "4\u{202E}2"))
        draft.environment = AuditEnvironment(deviceModel: "Pixel\n8", osVersion: "Android\r15", toolVersion: TunnelVisionBuild.version)
        let session = try store.startRecording(draft, at: start)
        _ = try store.endRecording(id: session.id, at: start.addingTimeInterval(1))
        return (history, project.id, session.id)
    }

    /// One line, with the stored text shown and nothing unsafe left in it.
    static func expectOneVisibleLine(_ run: Run, containing expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 0, "\(run)", sourceLocation: sourceLocation)
        #expect(run.output.hasSuffix("\n") && run.output.dropLast().allSatisfy { $0 != "\n" && $0 != "\r" },
                "the confirmation is one line: \(run.output.debugDescription)", sourceLocation: sourceLocation)
        #expect(!run.output.unicodeScalars.contains { TerminalText.isUnsafe($0) && $0 != "\n" }, sourceLocation: sourceLocation)
        #expect(run.output.contains(expected), "\(run.output.debugDescription)", sourceLocation: sourceLocation)
    }

    @Test func projectEditSaysTheStoredNameVisibly() throws {
        let (history, project, _) = try Self.history()
        let run = try TVCtlBinary.run(["project", "edit", String(project), "--bundle-id", "com.lab.health"], database: history.path)
        Self.expectOneVisibleLine(run, containing: "Updated project \(project), \(Self.shownName).")
    }

    @Test func allowAndDisallowSayTheStoredNameVisibly() throws {
        let (history, project, _) = try Self.history()
        let allowed = try TVCtlBinary.run(["project", "allow", String(project), "api.lab.example"], database: history.path)
        Self.expectOneVisibleLine(allowed, containing: "api.lab.example is allowed for \(Self.shownName) (1 entry in its allowlist).")
        let disallowed = try TVCtlBinary.run(["project", "disallow", String(project), "api.lab.example"], database: history.path)
        Self.expectOneVisibleLine(disallowed, containing: "api.lab.example is no longer allowed for \(Self.shownName)")
    }

    @Test func projectDeleteSaysTheStoredNameVisibly() throws {
        let (history, project, _) = try Self.history()
        let run = try TVCtlBinary.run(["project", "delete", String(project), "--yes"], database: history.path)
        Self.expectOneVisibleLine(run, containing: "Deleted project \(project), \(Self.shownName), and its 1 session.")
    }

    @Test func sessionStartAndEndSayTheStoredNameVisibly() throws {
        let (history, project, _) = try Self.history()
        let started = try TVCtlBinary.run(["session", "start", String(project), "--baseline", "--device", "x", "--os", "y"], database: history.path)
        Self.expectOneVisibleLine(started, containing: ", \(Self.shownName) baseline, on x with y;")
        let marked = try TVCtlBinary.run(["mark", "consent"], database: history.path)
        Self.expectOneVisibleLine(marked, containing: ", \(Self.shownName) baseline")
        let ended = try TVCtlBinary.run(["session", "end"], database: history.path)
        Self.expectOneVisibleLine(ended, containing: ", \(Self.shownName) baseline, at ")
    }

    @Test func sessionDeleteSaysTheStoredReleaseVisibly() throws {
        let (history, _, session) = try Self.history()
        let run = try TVCtlBinary.run(["session", "delete", String(session), "--yes"], database: history.path)
        Self.expectOneVisibleLine(run, containing: "Deleted session \(session), \(Self.shownName) 3.0\\u{A}1 (4\\u{202E}2);")
    }

    @Test func sessionShowSaysTheStoredDeviceVisibly() throws {
        let (history, _, session) = try Self.history()
        let run = try TVCtlBinary.run(["session", "show", String(session)], database: history.path)
        #expect(run.status == 0)
        #expect(run.output.contains("Pixel\\u{A}8, Android\\u{D}15"), "\(run.output)")
        #expect(!run.output.contains("Pixel\n"))
    }
}
