import Foundation
import Testing
import TunnelVisionBuildStamp
import TunnelVisionModel
import TunnelVisionStore

/// What one run of the built tvctl binary did.
struct Run: CustomStringConvertible {
    let status: Int32
    let output: String
    let error: String

    var description: String { "exit \(status)\nstdout:\n\(output)\nstderr:\n\(error)" }

    func json<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try JSONDecoder().decode(type, from: Data(output.utf8))
    }
}

/// The tvctl executable this test run was built beside, run as a separate process against a
/// real database file: what a technician or a script would see. tvfixture, the development
/// tool that seeds a demo history, is found and run the same way.
enum TVCtlBinary {
    static let executable: URL? = built("tvctl")
    static let fixtureExecutable: URL? = built("tvfixture")

    private static func built(_ name: String) -> URL? {
        var candidates: [URL] = []
        if let test = Bundle.main.executableURL { candidates.append(test.deletingLastPathComponent()) }
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        candidates.append(exe.deletingLastPathComponent())
        // The package's own .build/debug, found from this file.
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(package.appendingPathComponent(".build/debug"))
        return candidates.map { $0.appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Runs tvctl with the arguments, UTC as the local zone, no colour requested either way.
    static func run(
        _ arguments: [String], database: String? = nil, environment extra: [String: String] = [:], input: String? = nil,
        in directory: URL? = nil
    ) throws -> Run {
        let process = try start(arguments, database: database, environment: extra, input: input, in: directory)
        return process.finish()
    }

    /// Runs tvfixture (the seeded demo history) with the arguments, as tvctl is run.
    static func fixture(_ arguments: [String], database: String? = nil, environment extra: [String: String] = [:]) throws -> Run {
        try start(arguments, database: database, environment: extra, program: fixtureExecutable).finish()
    }

    static func start(
        _ arguments: [String], database: String?, environment extra: [String: String] = [:], input: String? = nil,
        in directory: URL? = nil, program: URL?? = nil
    ) throws -> RunningTVCtl {
        guard let executable = program ?? executable else {
            throw TestFailure("tvctl and tvfixture are not built beside the tests: run 'swift build --build-tests' first")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = "UTC"
        environment["TUNNELVISION_CATALOGUES"] = repository.appendingPathComponent("Catalogues").path
        environment.removeValue(forKey: "NO_COLOR")
        environment.removeValue(forKey: "TUNNELVISION_DB")
        if let database { environment["TUNNELVISION_DB"] = database }
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        let output = Pipe(), error = Pipe(), standardInput = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = standardInput
        try process.run()
        let running = RunningTVCtl(process: process, output: output, error: error, input: standardInput)
        if let input { running.send(input) }
        if input != nil { running.closeInput() }
        return running
    }
}

/// A tvctl still running: keys can be sent and its output read when it ends.
final class RunningTVCtl: @unchecked Sendable {
    let process: Process
    private let outputPipe: Pipe
    private let errorPipe: Pipe
    private let inputPipe: Pipe
    private let collected = Collected()

    /// Reads both streams while the process runs, so that a full pipe never blocks it.
    private final class Collected: @unchecked Sendable {
        let lock = NSLock()
        var output = Data()
        var error = Data()
        let pending = DispatchGroup()
    }

    init(process: Process, output: Pipe, error: Pipe, input: Pipe) {
        self.process = process
        outputPipe = output
        errorPipe = error
        inputPipe = input
        // One reader thread per stream, each appending in the order it read: a readability
        // handler still running when the process ends could append its chunk after the rest.
        let collected = self.collected
        for (handle, isOutput) in [(output.fileHandleForReading, true), (error.fileHandleForReading, false)] {
            collected.pending.enter()
            Thread.detachNewThread {
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    collected.lock.lock()
                    if isOutput { collected.output.append(data) } else { collected.error.append(data) }
                    collected.lock.unlock()
                }
                collected.pending.leave()
            }
        }
    }

    func send(_ text: String) {
        inputPipe.fileHandleForWriting.write(Data(text.utf8))
    }

    func closeInput() {
        try? inputPipe.fileHandleForWriting.close()
    }

    /// What it has written so far.
    var outputSoFar: String {
        collected.lock.lock(); defer { collected.lock.unlock() }
        return String(decoding: collected.output, as: UTF8.self)
    }

    /// Waits until the output holds the text, or the timeout passes.
    @discardableResult
    func waitForOutput(containing text: String, timeout: TimeInterval = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if outputSoFar.contains(text) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    func finish() -> Run {
        process.waitUntilExit()
        collected.pending.wait()
        collected.lock.lock(); defer { collected.lock.unlock() }
        return Run(
            status: process.terminationStatus, output: String(decoding: collected.output, as: UTF8.self),
            error: String(decoding: collected.error, as: UTF8.self))
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A database file in a folder of its own, removed when the test is done.
final class ScratchHistory {
    let folder: URL
    var path: String { folder.appendingPathComponent("history.sqlite").path }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvctl-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// The key folders go with it: they sit beside the history's folder, not in it.
    deinit {
        for suffix in ["", "-signing", "-seal"] { try? FileManager.default.removeItem(atPath: folder.path + suffix) }
    }

    func open() throws -> History { try History(path: path) }

    /// The fixture seeded by tvctl itself, at a fixed instant so that tables can be compared whole.
    static func seeded() throws -> ScratchHistory {
        let history = try ScratchHistory()
        let run = try TVCtlBinary.fixture(["--at", fixtureStart], database: history.path)
        guard run.status == 0 else { throw TestFailure("fixture failed: \(run)") }
        return history
    }

    static let fixtureStart = "2026-10-01T09:00:00Z"
}

/// The expected output kept beside the tests.
enum Golden {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Golden")

    /// Stands for this build's version, so that a release does not rewrite every expectation.
    static let versionMark = "{version}"

    static func text(_ name: String) throws -> String {
        let file = folder.appendingPathComponent(name + ".txt")
        if ProcessInfo.processInfo.environment["TVCTL_RECORD_GOLDEN"] != nil { return "" }
        return try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: versionMark, with: BuildStamp.version)
    }

    /// Writes the actual output as the expectation, when asked to (TVCTL_RECORD_GOLDEN=1): for a
    /// person to read and commit, never silently.
    static func record(_ name: String, _ actual: String) {
        guard ProcessInfo.processInfo.environment["TVCTL_RECORD_GOLDEN"] != nil else { return }
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let text = actual.replacingOccurrences(of: "TunnelVision \(BuildStamp.version)", with: "TunnelVision \(versionMark)")
        try? text.write(to: folder.appendingPathComponent(name + ".txt"), atomically: true, encoding: .utf8)
    }
}
