import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionStore

/// Two real OS processes on one database file.
@Suite(.serialized) struct ConcurrencyTests {
    static var probe: URL {
        // The probe is built beside the test bundle.
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if folder.path.hasSuffix(".xctest/Contents/MacOS") { folder = folder.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent() }
        let beside = folder.appendingPathComponent("StoreProbe")
        if FileManager.default.fileExists(atPath: beside.path) { return beside }
        return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("StoreProbe")
    }

    static func launch(_ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = probe
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        return (process, output)
    }

    static func finish(_ launched: (Process, Pipe)) -> String {
        let data = launched.1.fileHandleForReading.readDataToEndOfFile()
        launched.0.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func twoProcessesRaceToStartASessionAndExactlyOneWins() throws {
        for _ in 0..<5 {
            let db = TemporaryDatabase()
            let store = try db.open()
            let project = try store.createAuditProject(projectDraft(), at: at(0))
            let go = db.folder.appendingPathComponent("go").path
            let racers = try (0..<2).map { _ in try Self.launch(["start-session", db.path, "\(project.id)", go]) }
            usleep(300_000)
            FileManager.default.createFile(atPath: go, contents: nil)
            let answers = racers.map(Self.finish).sorted()
            let open = try #require(try store.openRecording())
            #expect(answers == ["alreadyOpen \(open.id)", "started \(open.id)"])
            #expect(try store.recordings(forProject: project.id).count == 1)
        }
    }

    /// Per phone: two racers for one phone leave one winner; racers for two phones both win.
    @Test func theRaceToStartIsWonOncePerPhone() throws {
        for _ in 0..<3 {
            let db = TemporaryDatabase()
            let store = try db.open()
            let project = try store.createAuditProject(projectDraft(), at: at(0))
            try store.addPhone(phoneA, at: at(0))
            try store.addPhone(phoneB, at: at(0))
            let go = db.folder.appendingPathComponent("go").path
            let racers = try ["pixel", "pixel", "iphone", "iphone"].map { phone in
                try Self.launch(["start-session", db.path, "\(project.id)", go, phone])
            }
            usleep(300_000)
            FileManager.default.createFile(atPath: go, contents: nil)
            let answers = racers.map(Self.finish)
            let pixel = try #require(try store.openRecording(phone: "pixel"))
            let iphone = try #require(try store.openRecording(phone: "iphone"))
            #expect(Array(answers[0...1]).sorted() == ["alreadyOpen \(pixel.id)", "started \(pixel.id)"])
            #expect(Array(answers[2...3]).sorted() == ["alreadyOpen \(iphone.id)", "started \(iphone.id)"])
            #expect(try store.openRecordings().count == 2)
        }
    }

    @Test func aWriterInOneProcessTagsExactlyWhatTheOtherRecords() throws {
        let db = TemporaryDatabase()
        let store = try db.open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        let stop = db.folder.appendingPathComponent("stop").path
        let writer = try Self.launch(["write-flows", db.path, stop])
        usleep(300_000)
        let cycle = Self.finish(try Self.launch(["session-cycle", db.path, "\(project.id)"]))
        usleep(300_000)
        FileManager.default.createFile(atPath: stop, contents: nil)
        let wrote = Self.finish(writer)
        #expect(cycle.hasPrefix("cycled "), "session cycle said: \(cycle)")
        #expect(wrote.hasPrefix("wrote "), "writer said: \(wrote)")
        let sessionID = try #require(Int64(cycle.dropFirst("cycled ".count)))
        let tags = try store.access { db in
            try db.statement("SELECT audit_session_id FROM flows ORDER BY id").rows { $0.int64OrNil(0) }
        }
        // Untagged, then tagged without a gap, then untagged: nothing during the session escaped it.
        let firstTagged = try #require(tags.firstIndex(of: sessionID))
        let lastTagged = try #require(tags.lastIndex(of: sessionID))
        #expect(firstTagged > 0 && lastTagged < tags.count - 1)
        #expect(tags[..<firstTagged].allSatisfy { $0 == nil })
        #expect(tags[firstTagged...lastTagged].allSatisfy { $0 == sessionID })
        #expect(tags[(lastTagged + 1)...].allSatisfy { $0 == nil })
        #expect(try store.markers(forSession: sessionID).map(\.kind) == [.consentGiven])
        #expect(Int(wrote.dropFirst("wrote ".count)) == tags.count)
    }
}
