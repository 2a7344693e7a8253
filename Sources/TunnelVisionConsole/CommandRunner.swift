import Foundation
import TunnelVisionControl

/// The console's way to act: tvctl's own commands, run in this process on the same history,
/// their output kept as text. The page shows what tvctl would have printed and refuses what
/// tvctl refuses, with the same sentence: there is no second copy of a rule or of its words.
public struct CommandRunner: Sendable {
    public let database: String
    public let toolVersion: String

    public struct Outcome: Sendable, Equatable {
        public let status: Int32
        public let output: String
        /// tvctl's sentence without its "tvctl: " prefix.
        public let refusal: String

        public var succeeded: Bool { status == 0 }
        /// What the page says: the output when it worked, else the refusal.
        public var said: String { succeeded ? HTML.trimmingLineBreaks(output) : refusal }
    }

    public init(database: String, toolVersion: String) {
        self.database = database
        self.toolVersion = toolVersion
    }

    /// Runs a command line; options are given as `--name=value` and words after `--`, so that a
    /// value beginning with a dash stays a value.
    public func run(_ arguments: [String], at instant: Date = Date()) -> Outcome {
        let output = Collected(), errors = Collected()
        let console = Console(
            writeOutput: { output.append($0) }, writeError: { errors.append($0) }, readLine: { nil },
            outputIsTerminal: false, inputIsTerminal: false)
        let invocation = Invocation(
            console: console, environment: ["TUNNELVISION_DB": database, "NO_COLOR": "1"], startedAt: instant, toolVersion: toolVersion)
        let status = TVCtl.run(arguments, invocation: invocation)
        let refusal = errors.text.split(separator: "\n").map { line in
            line.hasPrefix("tvctl: ") ? String(line.dropFirst(7)) : String(line)
        }.joined(separator: "\n")
        return Outcome(status: status, output: output.text, refusal: refusal)
    }

    /// `--name=value` for each given value.
    public static func options(_ pairs: [(String, String?)]) -> [String] {
        pairs.compactMap { name, value in value.map { "--\(name)=\($0)" } }
    }
}

/// Text written from whichever thread a command writes on.
final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var parts: [String] = []

    func append(_ text: String) {
        lock.lock()
        parts.append(text)
        lock.unlock()
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return parts.joined()
    }
}
