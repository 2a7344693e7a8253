import Foundation
import Testing
@testable import TunnelVisionControl
import TunnelVisionArchive

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

    @Test("archive.conf's 'reading = archive' makes the archive the default of the reading commands, and --local reads the gateway's history")
    func configuredDefault() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("archive-reading-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("archive.conf").path
        let base = "connection = host=/run/postgresql dbname=tunnelvision\ngateway = bench-a\n"
        func routed(_ arguments: [String]) -> [String] {
            ArchiveReading.routed(arguments) { ArchiveReading.configuredDefault(arguments, environment: ["TUNNELVISION_ARCHIVE_CONF": config]) }
        }

        #expect(routed(["diff", "bench-a:5", "bench-b:2"]) == ["diff", "bench-a:5", "bench-b:2"], "no file: the gateway's history")
        try (base + "reading = archive\n").write(toFile: config, atomically: true, encoding: .utf8)
        #expect(routed(["diff", "bench-a:5", "bench-b:2"]) == ["archive", "diff", "bench-a:5", "bench-b:2"])
        #expect(routed(["--db", "/tmp/h", "findings", "bench-b:2"]) == ["--db", "/tmp/h", "archive", "findings", "bench-b:2"])
        #expect(routed(["recordings", "--json"]) == ["archive", "recordings", "--json"])
        #expect(routed(["--local", "diff", "5", "7"]) == ["diff", "5", "7"])
        #expect(routed(["findings", "7", "--local"]) == ["findings", "7"])
        #expect(routed(["status"]) == ["status"], "a command the archive does not read stays the gateway's")
        #expect(routed(["--archive", "--local", "diff", "5", "7"]) == ["--archive", "--local", "diff", "5", "7"], "both flags: the parser refuses")
        let other = folder.appendingPathComponent("other.conf").path
        try (base + "reading = gateway\n").write(toFile: other, atomically: true, encoding: .utf8)
        #expect(ArchiveReading.configuredDefault(["diff", "--archive-config", other], environment: ["TUNNELVISION_ARCHIVE_CONF": config]) == false,
                "--archive-config names the file whose default counts")

        try (base + "reading = sometimes\n").write(toFile: config, atomically: true, encoding: .utf8)
        #expect(routed(["diff", "5", "7"]) == ["diff", "5", "7"], "a file the archive's commands refuse names no default")
        #expect(throws: (any Error).self) { try ArchiveConfiguration.parse(base + "reading = sometimes\n", path: "archive.conf") }
    }
}
