import Foundation
import Synchronization
import Testing
@testable import TunnelVisionControl
import TunnelVisionModel
import TunnelVisionStore

/// Issue 19: what a deliberate attempt to break tvctl found, each fixed where the input enters.
struct HostileInputTests {
    /// tvctl in this process, with the clock and environment a test chooses.
    static func run(_ arguments: [String], database: String, clock: Date) -> (status: Int32, error: String) {
        let errors = Mutex("")
        let console = Console(writeOutput: { _ in }, writeError: { text in errors.withLock { $0 += text } },
                              readLine: { nil }, outputIsTerminal: false, inputIsTerminal: false)
        let invocation = Invocation(console: console, environment: ["TUNNELVISION_DB": database], startedAt: clock, clock: { clock })
        let status = TVCtl.run(arguments, invocation: invocation)
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
        #expect(try history.open().openAuditSession() == nil)
        let fixture = Self.run(["fixture", "--name", "Later"], database: history.path, clock: future)
        #expect(fixture.status == 2)
    }
}

/// Issue 19, item 7: what is stored already (an older tvctl, a hand-edited history) prints visibly.
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

/// Issue 19, item 6: a seed cut off part-way (a full disk) leaves nothing half-made.
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
        let run = try TVCtlBinary.run(["fixture", "--at", ScratchHistory.fixtureStart], database: history.path)
        #expect(run.status != 0)
        let store = try history.open()
        #expect(try store.auditProjects().isEmpty)
        #expect(try store.openAuditSession() == nil)
        #expect(try store.captureSessions().isEmpty)
    }
}
