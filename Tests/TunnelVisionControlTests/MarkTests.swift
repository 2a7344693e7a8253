import Foundation
import Testing
import TunnelVisionControl
import TunnelVisionModel
import TunnelVisionStore

/// `tvctl mark`: placed with its instant and where, or said to be not placed and why.
struct MarkTests {
    /// The fixture plus an open recording of release 2.5.0 (320), started by tvctl.
    static func recording() throws -> ScratchHistory {
        let history = try ScratchHistory.seeded()
        let start = try TVCtlBinary.run(
            ["session", "start", "Acme Health", "--release", "2.5.0", "--build", "320", "--device", "Pixel 8", "--os", "Android 15"],
            database: history.path)
        guard start.status == 0 else { throw TestFailure("session start: \(start)") }
        return history
    }

    @Test(arguments: [
        ("consent", SessionMarkerKind.consentGiven, "consent given"),
        ("login", .loggedIn, "logged in"),
        ("LOGOUT", .loggedOut, "logged out"),
        ("opened the diary", .custom("opened the diary"), "“opened the diary”"),
    ])
    func answersWithTheMarkerTheSecondAndTheRecording(_ word: String, _ kind: SessionMarkerKind, _ said: String) throws {
        let history = try Self.recording()
        let run = try TVCtlBinary.run(["mark", word], database: history.path)
        #expect(run.status == 0, "\(run)")
        let markers = try history.open().markers(forSession: 3)
        let marker = try #require(markers.last)
        #expect(markers.count == 1)
        #expect(marker.kind == kind)
        let second = Formatting.time(marker.date, in: TimeZone(identifier: "UTC")!)
        #expect(run.output == "\(said) at \(second) in session 3, Acme Health 2.5.0 (320)\n")
        #expect(run.error.isEmpty)
    }

    @Test func jsonSaysPlacedWithTheMarkerAndTheSession() throws {
        let history = try Self.recording()
        let run = try TVCtlBinary.run(["mark", "consent", "--json"], database: history.path)
        let outcome = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(outcome["placed"] as? Bool == true)
        #expect((outcome["marker"] as? [String: Any])?["kind"] as? String == "consentGiven")
        #expect((outcome["session"] as? [String: Any])?["id"] as? Int == 3)
    }

    @Test func anEmptyTextIsRefusedAndNothingIsPlaced() throws {
        let history = try Self.recording()
        let run = try TVCtlBinary.run(["mark", "   "], database: history.path)
        #expect(run.status == 1)
        #expect(run.error == "tvctl: A marker needs words: give consent, login, logout or a text that is not empty.\n")
        #expect(try history.open().markers(forSession: 3).isEmpty)
    }

    /// The instant is taken before the database opens: a writer holding the history for two
    /// seconds delays the marker's placement, never its time.
    @Test func theInstantIsTheCommandsNotTheDatabases() throws {
        let history = try Self.recording()
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        holder.arguments = [history.path]
        let commands = Pipe(), answers = Pipe()
        holder.standardInput = commands
        holder.standardOutput = answers
        try holder.run()
        commands.fileHandleForWriting.write(Data("BEGIN IMMEDIATE;\nSELECT 'holding';\n".utf8))
        var heard = Data()
        while !String(decoding: heard, as: UTF8.self).contains("holding") {
            heard.append(answers.fileHandleForReading.availableData)
        }

        let launched = Date()
        let mark = try TVCtlBinary.start(["mark", "consent"], database: history.path)
        Thread.sleep(forTimeInterval: 2)
        #expect(mark.process.isRunning, "mark waited for the writer")
        commands.fileHandleForWriting.write(Data("COMMIT;\n.quit\n".utf8))
        let run = mark.finish()
        holder.waitUntilExit()
        let answered = Date()

        #expect(run.status == 0, "\(run)")
        let marker = try #require(try history.open().markers(forSession: 3).first)
        #expect(marker.date >= Instant(launched.addingTimeInterval(-0.01)))
        #expect(marker.date < Instant(launched.addingTimeInterval(1)), "dated when typed, not when the history let it in")
        #expect(answered.timeIntervalSince(launched) >= 2)
    }

    @Test func interactiveKeysMarkAtTheKeypressAndNameTheRecording() throws {
        let history = try Self.recording()
        let run = try TVCtlBinary.run(["mark", "-i"], database: history.path, input: "c\nlxoq")
        #expect(run.status == 0, "\(run)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "Marking session 3, Acme Health 2.5.0 (320) — c consent · l login · o logout · q quit")
        #expect(lines.filter { $0.hasPrefix("consent given at ") }.count == 1)
        #expect(lines.filter { $0.hasPrefix("logged in at ") }.count == 1)
        #expect(lines.filter { $0.hasPrefix("logged out at ") }.count == 1)
        #expect(lines.contains("c consent · l login · o logout · q quit"), "an unknown key is answered with the keys")
        let kinds = try history.open().markers(forSession: 3).map(\.kind)
        #expect(kinds == [.consentGiven, .loggedIn, .loggedOut])
    }

    @Test func interactiveWithoutARecordingSaysSoAndPlacesNothing() throws {
        let history = try ScratchHistory.seeded()
        let run = try TVCtlBinary.run(["mark", "-i"], database: history.path, input: "cq")
        #expect(run.status == 0)
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "No recording is open: keys place nothing until one starts ('tvctl session start').")
        #expect(lines.contains("Nothing was marked: no recording is open; start one with 'tvctl session start'."))
        for session in [Int64(1), 2] { #expect(try history.open().markers(forSession: session).count == (session == 2 ? 4 : 0)) }
    }

    @Test func aHistoryThatDoesNotAnswerIsSaidToHaveMarkedNothing() throws {
        let history = try ScratchHistory()
        let run = try TVCtlBinary.run(["mark", "consent"], database: history.path)
        #expect(run.status == 3)
        #expect(run.output.isEmpty)
        #expect(run.error == "tvctl: Nothing was marked: there is no history at \(history.path): start tunnelvisiond, or name the database with --db or TUNNELVISION_DB.\n")
    }

    @Test func interactiveWithAHistoryThatDoesNotAnswerSaysThatInstead() throws {
        let history = try ScratchHistory()
        let run = try TVCtlBinary.run(["mark", "-i"], database: history.path, input: "q")
        #expect(run.output == "Nothing can be marked: there is no history at \(history.path): start tunnelvisiond, or name the database with --db or TUNNELVISION_DB.\n")
        #expect(!FileManager.default.fileExists(atPath: history.path))
    }

    /// `mark` and `session end` started together from two processes, again and again: the
    /// marker is either in the session, reported as placed there, or refused and absent.
    @Test func markRacingSessionEndNeverLandsInAnEndedSession() throws {
        let history = try ScratchHistory.seeded()
        let store = try history.open()
        var placed = 0, refused = 0
        for round in 0..<16 {
            let session = try store.startRecording(sessionDraft(project: 1, kind: release("3.\(round)", "\(round)")), at: Date())
            let first = round.isMultiple(of: 2) ? ["mark", "round \(round)"] : ["session", "end"]
            let second = round.isMultiple(of: 2) ? ["session", "end"] : ["mark", "round \(round)"]
            let a = try TVCtlBinary.start(first, database: history.path)
            let b = try TVCtlBinary.start(second, database: history.path)
            let (runA, runB) = (a.finish(), b.finish())
            let (mark, end) = round.isMultiple(of: 2) ? (runA, runB) : (runB, runA)
            #expect(end.status == 0, "\(end)")
            let markers = try store.markers(forSession: session.id)
            let ended = try #require(try store.recording(id: session.id))
            #expect(!ended.isOpen)
            switch mark.status {
            case 0:
                placed += 1
                #expect(markers.map(\.kind) == [.custom("round \(round)")])
                #expect(mark.output.contains("in session \(session.id), Acme Health 3.\(round) (\(round))"))
            case 1:
                refused += 1
                #expect(markers.isEmpty)
                #expect(mark.error == "tvctl: Nothing was marked: no recording is open; start one with 'tvctl session start'.\n")
                #expect(mark.output.isEmpty)
            default:
                Issue.record("mark neither placed nor refused: \(mark)")
            }
        }
        #expect(placed + refused == 16)
        // Every marker the history holds was reported as placed: none went anywhere else.
        let all = try (1...Int64(18)).flatMap { try store.markers(forSession: $0) }
        #expect(all.count == 4 + placed)
    }
}
