import Testing
@testable import TunnelVisionControl

@Suite("tvctl --archive before a reading command")
struct ArchiveReadingTests {
    static func parsedPath(_ arguments: [String]) throws -> (String, [String]) {
        guard case .run(_, let parsed) = try TVCtl.parser.parse(ArchiveReading.routed(arguments)) else {
            Issue.record("\(arguments) did not parse to a command")
            return ("", [])
        }
        return (parsed.commandPath, parsed.positionals)
    }

    @Test("It runs the archive's command of the same name, wherever the flag stands and whatever --db precedes it")
    func routed() throws {
        #expect(try Self.parsedPath(["--archive", "recordings"]).0 == "tvctl archive recordings")
        #expect(try Self.parsedPath(["--db", "/tmp/h", "--archive", "diff", "bench-a:5", "bench-b:2"])
            == ("tvctl archive diff", ["bench-a:5", "bench-b:2"]))
        #expect(try Self.parsedPath(["findings", "bench-b:2", "--archive", "--json"]) == ("tvctl archive findings", ["bench-b:2"]))
        #expect(try Self.parsedPath(["--archive", "export", "bench-b:2", "--output", "/tmp"]).0 == "tvctl archive export")
        #expect(try Self.parsedPath(["archive", "diff", "bench-a:5", "bench-b:2"]).0 == "tvctl archive diff")
    }

    @Test("Elsewhere the flag is left to the parser, which refuses it; after -- it is a word")
    func leftAlone() throws {
        #expect(throws: ControlError.self) { try TVCtl.parser.parse(ArchiveReading.routed(["--archive", "status"])) }
        #expect(ArchiveReading.routed(["mark", "--", "--archive"]) == ["mark", "--", "--archive"])
        #expect(ArchiveReading.routed(["diff", "1", "2"]) == ["diff", "1", "2"])
    }
}
