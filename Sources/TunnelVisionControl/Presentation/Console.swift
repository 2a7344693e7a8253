import Foundation
import TunnelVisionModel

#if canImport(Glibc)
import Glibc
#endif

/// Where a command writes and reads, and whether a person is at the other end.
public struct Console: Sendable {
    public let writeOutput: @Sendable (String) -> Void
    public let writeError: @Sendable (String) -> Void
    public let readLine: @Sendable () -> String?
    public let outputIsTerminal: Bool
    public let inputIsTerminal: Bool

    public init(
        writeOutput: @escaping @Sendable (String) -> Void, writeError: @escaping @Sendable (String) -> Void,
        readLine: @escaping @Sendable () -> String?, outputIsTerminal: Bool, inputIsTerminal: Bool
    ) {
        self.writeOutput = writeOutput
        self.writeError = writeError
        self.readLine = readLine
        self.outputIsTerminal = outputIsTerminal
        self.inputIsTerminal = inputIsTerminal
    }

    /// The process's own standard streams, unbuffered so that a live view and a prompt show at once.
    public static let standard = Console(
        writeOutput: { FileHandle.standardOutput.write(Data(TerminalText.forTerminal($0).utf8)) },
        writeError: { FileHandle.standardError.write(Data(TerminalText.forTerminal($0).utf8)) },
        readLine: { Swift.readLine(strippingNewline: true) },
        outputIsTerminal: isatty(STDOUT_FILENO) == 1,
        inputIsTerminal: isatty(STDIN_FILENO) == 1)

    public func print(_ line: String = "") { writeOutput(line + "\n") }
}

/// One run of tvctl: its console, its environment and the instant it began.
public struct Invocation: Sendable {
    public let console: Console
    public let environment: [String: String]
    /// Taken before anything else, database included: the instant a one-shot marker carries.
    public let startedAt: Date
    /// For what happens later in a long-running command (a keypress, a refresh).
    public let clock: @Sendable () -> Date
    /// The executable's build by name (release and commit): what `--version` prints and what a
    /// session, a capture run and a bundle store as the tool.
    public let toolVersion: String

    public init(
        console: Console, environment: [String: String], startedAt: Date,
        clock: @escaping @Sendable () -> Date = { Date() }, toolVersion: String = TunnelVisionBuild.version
    ) {
        self.console = console
        self.environment = environment
        self.startedAt = startedAt
        self.clock = clock
        self.toolVersion = toolVersion
    }

    /// Colour only when a person reads the output, and never when NO_COLOR asks for none.
    public var style: TextStyle {
        let refused = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        let dumb = environment["TERM"] == "dumb"
        return TextStyle(colours: console.outputIsTerminal && !refused && !dumb)
    }
}

/// ANSI attributes, or nothing at all.
public struct TextStyle: Sendable, Hashable {
    public let colours: Bool

    public init(colours: Bool) {
        self.colours = colours
    }

    public static let plain = TextStyle(colours: false)

    public func bold(_ text: String) -> String { wrap(text, "1") }
    public func dim(_ text: String) -> String { wrap(text, "2") }

    private func wrap(_ text: String, _ code: String) -> String {
        colours && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
