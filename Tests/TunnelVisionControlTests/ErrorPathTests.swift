import Foundation
import Testing
import TunnelVisionStore

/// Every way a command can fail, as the person sees it: the exit status, and one sentence on
/// standard error that says what to do. Run against the fixture's history (two ended sessions).
struct ErrorPathTests {
    struct Case: Sendable, CustomStringConvertible {
        let arguments: [String]
        let status: Int32
        let sentence: String
        /// tvctl, or tvfixture (the development tool that seeds the demo history).
        let program: String
        var description: String { ([program] + arguments).joined(separator: " ") }

        init(_ arguments: [String], _ status: Int32, _ sentence: String, program: String = "tvctl") {
            self.arguments = arguments
            self.status = status
            self.sentence = sentence
            self.program = program
        }
    }

    static let cases: [Case] = [
        // Refusals the person can act on: 1.
        Case(["mark", "consent"], 1, "Nothing was marked: no recording is open; start one with 'tvctl session start'."),
        Case(["session", "end"], 1, "No recording is open, so there is nothing to end: 'tvctl session list' shows the ended ones."),
        Case(["session", "end", "2"], 1, "Session 2 has already ended: start a new recording with 'tvctl session start'."),
        Case(["flows"], 1, "No recording is open: name a session, as in 'tvctl flows 7' ('tvctl session list' shows them)."),
        Case(["session", "show", "99"], 1, "There is no session 99: 'tvctl session list' shows the sessions there are."),
        Case(["findings", "99"], 1, "There is no session 99: 'tvctl session list' shows the sessions there are."),
        Case(["project", "show", "Nope"], 1, "There is no project 'Nope': 'tvctl project list' shows the projects there are."),
        Case(["project", "show", "42"], 1, "There is no project '42': 'tvctl project list' shows the projects there are."),
        Case(["project", "create", "Acme Health"], 1, "A project called 'Acme Health' already exists: choose another name, or name that one by its id."),
        Case(["project", "create", "  "], 1, "A project needs a name: give one that is not empty."),
        Case(["project", "allow", "1", "*.ACME.example."], 1, "The allowlist already has *.acme.example: give each pattern once."),
        Case(["project", "disallow", "acme health", "nothere.example"], 1, "nothere.example is not in the allowlist of Acme Health: 'tvctl project show 'Acme Health'' lists it."),
        Case(["diff", "1", "2"], 1, "Session 1 is a baseline, which has no release to compare: name two audit sessions."),
        Case(["diff", "2", "2"], 1, "Session 2 cannot be compared with itself: name two sessions of the same project."),
        Case(["catalogue", "show", "nope"], 1, "No catalogue nope is installed: 'tvctl catalogue list' shows the ones there are."),
        // The seeded history has no daemon settings: the CA is looked for where the daemon keeps it by default.
        Case(["ca", "show"], 1, "There is no inspection CA at /var/lib/tunnelvision-ca/ca.pem yet: start tunnelvisiond with inspection = on, or run 'tunnelvisiond --regenerate-ca' as root."),
        Case(["session", "start", "1", "--baseline", "--device", "x", "--os", "y", "--ca-trusted", "user"], 1,
             "Nothing was started: --ca-trusted names the CA the relay inspects with, and no running daemon has TLS inspection on with a CA loaded, so start it with inspection = on or leave --ca-trusted out."),
        Case(["session", "start", "1", "--baseline", "--device", "Pixel 8", "--os", "Android 15", "--db", "/dev/null/x"], 3,
             "There is no history at /dev/null/x: start tunnelvisiond, or name the database with --db or TUNNELVISION_DB."),
        // Command lines that say nothing runnable: 2.
        Case([], 2, "tvctl needs a command: see 'tvctl --help'."),
        Case(["projects"], 2, "tvctl has no command 'projects': see 'tvctl --help'."),
        Case(["status", "--verbose"], 2, "tvctl status has no option --verbose: see 'tvctl status --help'."),
        Case(["mark"], 2, "tvctl mark needs WHAT (consent, login, logout or a text): see 'tvctl mark --help'."),
        Case(["mark", "opened", "diary"], 2, "tvctl mark does not take 'diary' (quote a text of several words): see 'tvctl mark --help'."),
        Case(["mark", "-i", "consent"], 2, "tvctl mark does not take 'consent' (quote a text of several words): see 'tvctl mark --help'."),
        Case(["project", "allow", "1", "bad*.example"], 2, "'bad*.example' is not an allowlist pattern (* may only stand first, as in *.example.com): write a name or *.suffix, in ASCII."),
        Case(["project", "create", "X", "--allow", "bücher.example"], 2, "'bücher.example' is not an allowlist pattern (it is not ASCII; write an international name in its xn-- form): write a name or *.suffix, in ASCII."),
        Case(["project", "edit", "1"], 2, "tvctl project edit needs --name, --bundle-id or --catalogue: see 'tvctl project edit --help'."),
        Case(["project", "delete", "1"], 2, "Deleting asks for confirmation and this is not a terminal: run 'tvctl project delete' with --yes."),
        Case(["session", "delete", "1"], 2, "Deleting asks for confirmation and this is not a terminal: run 'tvctl session delete' with --yes."),
        Case(["session", "start", "1", "--device", "x", "--os", "y"], 2, "Say what is recorded: --baseline, or --release VERSION with --build BUILD; see 'tvctl session start --help'."),
        Case(["session", "start", "1", "--release", "2.5", "--device", "x", "--os", "y"], 2, "Say what is recorded: --baseline, or --release VERSION with --build BUILD; see 'tvctl session start --help'."),
        Case(["session", "start", "1", "--baseline", "--release", "2.5", "--build", "1", "--device", "x", "--os", "y"], 2, "Say what is recorded: --baseline, or --release VERSION with --build BUILD; see 'tvctl session start --help'."),
        Case(["session", "start", "1", "--baseline", "--os", "y"], 2, "tvctl session start needs --device MODEL: see 'tvctl session start --help'."),
        Case(["session", "start", "1", "--baseline", "--device", "x"], 2, "tvctl session start needs --os VERSION: see 'tvctl session start --help'."),
        Case(["findings", "seven"], 2, "'seven' is not a session id: sessions are named by their number, as 'tvctl session list' shows."),
        Case(["flows", "2", "--limit", "0"], 2, "--limit takes a whole number from 1 to 10000000, not '0'."),
        // Text that could take over the terminal is refused where it enters.
        Case(["project", "create", "Evil\u{1B}]0;owned\u{07}"], 2, "'Evil\\u{1B}]0;owned\\u{7}' holds a control character or a direction override: give names, notes and labels as printable text on one line."),
        Case(["project", "create", "Two\nLines"], 2, "'Two\\u{A}Lines' holds a control character or a direction override: give names, notes and labels as printable text on one line."),
        Case(["project", "create", "gpj.\u{202E}exe"], 2, "'gpj.\\u{202E}exe' holds a control character or a direction override: give names, notes and labels as printable text on one line."),
        Case(["mark", String(repeating: "x", count: 5000)], 2, "An argument of 5,000 bytes is longer than the 4,096 a name, a note or a label may have: shorten it."),
        Case(["project", "create", "Acme Health "], 1, "A project called 'Acme Health' already exists: choose another name, or name that one by its id."),
        // A catalogue identifier is a name of an installed catalogue, never a path.
        Case(["project", "edit", "1", "--catalogue", "../../x"], 1, "No catalogue ../../x is installed: 'tvctl catalogue list' shows the ones there are."),
        Case(["project", "edit", "1", "--catalogue", "tr-03161-1_9.9"], 1, "No catalogue tr-03161-1_9.9 is installed: 'tvctl catalogue list' shows the ones there are."),
        // Instants the history cannot hold once trapped tvctl (SIGILL).
    ]

    @Test(arguments: cases + fixtureCases)
    func saysWhatToDoInOneSentence(_ example: Case) throws {
        let history = try ScratchHistory.seeded()
        let run = example.program == "tvfixture"
            ? try TVCtlBinary.fixture(example.arguments, database: history.path)
            : try TVCtlBinary.run(example.arguments, database: history.path)
        #expect(run.status == example.status, "\(run)")
        #expect(run.error == example.program + ": " + example.sentence + "\n")
        #expect(run.output.isEmpty, "nothing on standard output: \(run.output)")
    }

    /// tvfixture (the development tool that seeds the demo history) refuses as tvctl does.
    static let fixtureCases: [Case] = [
        Case([], 1, "A project called 'Acme Health' already exists: choose another name, or name that one by its id.", program: "tvfixture"),
        Case(["--name", "Other", "--at", "yesterday"], 2, "'yesterday' is not an instant: write it as 2026-10-01T09:00:00Z.", program: "tvfixture"),
        Case(["--name", "Other", "--at", "2262-04-12T00:00:00Z"], 2, "'2262-04-12T00:00:00Z' is outside what the history can hold (1677-09-22 to 2262-04-11): give an instant between them, and check the system clock if it was not typed.", program: "tvfixture"),
        Case(["--name", "Other", "--at", "9999-12-31T23:59:59Z"], 2, "'9999-12-31T23:59:59Z' is outside what the history can hold (1677-09-22 to 2262-04-11): give an instant between them, and check the system clock if it was not typed.", program: "tvfixture"),
        Case(["--name", "Other", "--at", "1677-01-01T00:00:00Z"], 2, "'1677-01-01T00:00:00Z' is outside what the history can hold (1677-09-22 to 2262-04-11): give an instant between them, and check the system clock if it was not typed.", program: "tvfixture"),
        Case(["--name", "Other", "--at", "0001-01-01T00:00:00Z"], 2, "'0001-01-01T00:00:00Z' is outside what the history can hold (1677-09-22 to 2262-04-11): give an instant between them, and check the system clock if it was not typed.", program: "tvfixture"),
    ]

    @Test func nothingChangedAfterARefusal() throws {
        let history = try ScratchHistory.seeded()
        let before = try TVCtlBinary.run(["project", "show", "1", "--json"], database: history.path).output
        for arguments in [["project", "allow", "1", "*.acme.example"], ["project", "create", "Acme Health"], ["diff", "1", "2"]] {
            #expect(try TVCtlBinary.run(arguments, database: history.path).status == 1)
        }
        #expect(try TVCtlBinary.run(["project", "show", "1", "--json"], database: history.path).output == before)
    }

    @Test func aDamagedHistoryIsNamedNotQuotedFromSQLite() throws {
        let history = try ScratchHistory()
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: history.path))
        let run = try TVCtlBinary.run(["project", "list"], database: history.path)
        #expect(run.status == 3)
        #expect(run.error == "tvctl: The history at \(history.path) is damaged: restore it from a backup, or move it away so that tunnelvisiond starts a new one.\n")
    }

    @Test func aHistoryFromANewerVersionAsksForAnUpdate() throws {
        let history = try ScratchHistory.seeded()
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sqlite.arguments = [history.path, "PRAGMA user_version = 99"]
        try sqlite.run()
        sqlite.waitUntilExit()
        try #require(sqlite.terminationStatus == 0)
        let run = try TVCtlBinary.run(["status"], database: history.path)
        #expect(run.status == 3)
        #expect(run.error == "tvctl: The history at \(history.path) was written by a newer TunnelVision (schema 99, this tvctl reads \(History.currentSchemaVersion)): update tvctl.\n")
    }

    @Test func theDatabaseComesFromTheOptionBeforeTheEnvironment() throws {
        let chosen = try ScratchHistory.seeded()
        let other = try ScratchHistory()
        let run = try TVCtlBinary.run(["project", "list", "--db", chosen.path], database: other.path)
        #expect(run.status == 0, "\(run)")
        #expect(run.output.contains("Acme Health"))
        #expect(!FileManager.default.fileExists(atPath: other.path), "the environment's history was not created")
    }
}
