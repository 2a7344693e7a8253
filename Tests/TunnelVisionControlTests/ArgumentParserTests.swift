import Testing
@testable import TunnelVisionControl

/// The parser against tvctl's own command tree.
struct ArgumentParserTests {
    struct Accepted: Sendable, CustomStringConvertible {
        let arguments: [String]
        let command: String
        let positionals: [String]
        let values: [String: [String]]
        let flags: [String]
        var description: String { arguments.joined(separator: " ") }
    }

    static let accepted: [Accepted] = [
        Accepted(arguments: ["status"], command: "tvctl status", positionals: [], values: [:], flags: []),
        Accepted(arguments: ["--db", "/tmp/x", "status", "--json"], command: "tvctl status", positionals: [],
                 values: ["db": ["/tmp/x"]], flags: ["json"]),
        Accepted(arguments: ["project", "list", "--db=/tmp/y"], command: "tvctl project list", positionals: [],
                 values: ["db": ["/tmp/y"]], flags: []),
        Accepted(arguments: ["project", "create", "Acme Health", "--allow", "*.a.example=backend", "--allow", "b.example"],
                 command: "tvctl project create", positionals: ["Acme Health"],
                 values: ["allow": ["*.a.example=backend", "b.example"]], flags: []),
        Accepted(arguments: ["session", "start", "--release", "2.4.1", "3", "--build=310", "--device", "Pixel 8", "--os", "Android 15", "--ca-trusted", "user"],
                 command: "tvctl session start", positionals: ["3"],
                 values: ["release": ["2.4.1"], "build": ["310"], "device": ["Pixel 8"], "os": ["Android 15"], "ca-trusted": ["user"]], flags: []),
        Accepted(arguments: ["mark", "--", "-not an option"], command: "tvctl mark", positionals: ["-not an option"], values: [:], flags: []),
        Accepted(arguments: ["mark", "-i"], command: "tvctl mark", positionals: [], values: [:], flags: ["interactive"]),
        Accepted(arguments: ["flows", "-fn", "5"], command: "tvctl flows", positionals: [], values: ["limit": ["5"]], flags: ["follow"]),
        Accepted(arguments: ["flows", "7", "-n20"], command: "tvctl flows", positionals: ["7"], values: ["limit": ["20"]], flags: []),
        Accepted(arguments: ["session", "end"], command: "tvctl session end", positionals: [], values: [:], flags: []),
        Accepted(arguments: ["project", "delete", "3", "-y"], command: "tvctl project delete", positionals: ["3"], values: [:], flags: ["yes"]),
        Accepted(arguments: ["mark", "-"], command: "tvctl mark", positionals: ["-"], values: [:], flags: []),
    ]

    @Test(arguments: accepted)
    func acceptsWhatTheHelpDescribes(_ example: Accepted) throws {
        guard case .run(_, let parsed) = try TVCtl.parser.parse(example.arguments) else {
            Issue.record("not a command to run")
            return
        }
        #expect(parsed.commandPath == example.command)
        #expect(parsed.positionals == example.positionals)
        for (name, values) in example.values { #expect(parsed.values(name) == values) }
        for flag in example.flags { #expect(parsed.flag(flag)) }
        let allFlags = ["json", "yes", "follow", "interactive", "baseline"]
        for flag in allFlags where !example.flags.contains(flag) { #expect(!parsed.flag(flag)) }
    }

    struct Refused: Sendable, CustomStringConvertible {
        let arguments: [String]
        let error: UsageError
        var description: String { arguments.joined(separator: " ") }
    }

    static let refused: [Refused] = [
        Refused(arguments: [], error: .missingSubcommand(command: "tvctl")),
        Refused(arguments: ["project"], error: .missingSubcommand(command: "tvctl project")),
        Refused(arguments: ["projects"], error: .unknownCommand("projects", command: "tvctl")),
        Refused(arguments: ["session", "begin"], error: .unknownCommand("begin", command: "tvctl session")),
        Refused(arguments: ["status", "--verbose"], error: .unknownOption("--verbose", command: "tvctl status")),
        Refused(arguments: ["flows", "-x"], error: .unknownOption("-x", command: "tvctl flows")),
        Refused(arguments: ["flows", "--limit"], error: .missingValue("--limit", valueName: "N", command: "tvctl flows")),
        Refused(arguments: ["status", "--json=yes"], error: .flagWithValue("--json", command: "tvctl status")),
        Refused(arguments: ["project", "edit", "3", "--name", "a", "--name", "b"], error: .repeatedOption("--name", command: "tvctl project edit")),
        Refused(arguments: ["project", "show"], error: .missingArgument("P", command: "tvctl project show")),
        Refused(arguments: ["project", "allow", "3"], error: .missingArgument("PATTERN", command: "tvctl project allow")),
        Refused(arguments: ["mark", "opened", "diary"], error: .unexpectedArgument("diary", command: "tvctl mark")),
        Refused(arguments: ["diff", "1"], error: .missingArgument("LATER", command: "tvctl diff")),
        Refused(arguments: ["--db"], error: .missingValue("--db", valueName: "PATH", command: "tvctl")),
    ]

    @Test(arguments: refused)
    func refusesWithTheUsageErrorThatNamesTheFault(_ example: Refused) {
        #expect(throws: ControlError.usage(example.error)) { try TVCtl.parser.parse(example.arguments) }
        #expect(ControlError.usage(example.error).exitCode == 2)
    }

    @Test(arguments: [["--help"], ["-h"], ["project", "--help"], ["project", "allow", "3", "-h"], ["session", "start", "--help"]])
    func helpIsAnsweredAtEveryLevel(_ arguments: [String]) throws {
        guard case .help(_, let path) = try TVCtl.parser.parse(arguments) else {
            Issue.record("help was not answered")
            return
        }
        #expect(path == (["tvctl"] + arguments.filter { !$0.hasPrefix("-") && $0 != "3" }).joined(separator: " "))
    }

    @Test func versionComesFromTheBuild() throws {
        guard case .version = try TVCtl.parser.parse(["--version"]) else {
            Issue.record("--version was not answered")
            return
        }
    }

    @Test func everyCommandHasHelpWithExamples() {
        func walk(_ spec: CommandSpec, path: String) {
            let page = HelpText.page(for: spec, commandPath: path, globalOptions: TVCtl.parser.globalOptions)
            #expect(page.contains("Usage: \(path)"), "\(path)")
            #expect(page.contains("--db PATH"), "\(path)")
            if spec.action != nil {
                #expect(!spec.examples.isEmpty, "\(path) has no example")
                for option in spec.options { #expect(page.contains("--" + option.name), "\(path) does not list --\(option.name)") }
            }
            for child in spec.subcommands { walk(child, path: path + " " + child.name) }
        }
        walk(TVCtl.parser.root, path: "tvctl")
    }

    @Test func everyCommandOfTheDesignExists() {
        let designed = [
            "status", "project create", "project list", "project show", "project edit", "project delete", "project allow",
            "project disallow", "session start", "session end", "session list", "session show", "session delete", "mark",
            "flows", "findings", "diff", "export", "catalogue list", "catalogue show", "catalogue check", "ca show",
        ]
        for path in designed {
            var node: CommandSpec? = TVCtl.parser.root
            for word in path.split(separator: " ") { node = node?.subcommand(named: String(word)) }
            #expect(node?.action != nil, "tvctl \(path) is missing")
        }
    }
}
