/// What a command line asks for.
public enum ParsedCommandLine: Sendable {
    case run(CommandSpec, ParsedArguments)
    case help(CommandSpec, commandPath: String)
    case version
}

/// Reads a command line against the command tree: subcommands first, then the options and
/// positional words of the command reached. Options may come before, between or after the
/// positionals; `--` ends them, so a marker's text may start with a dash.
public struct ArgumentParser: Sendable {
    public let root: CommandSpec
    /// Options every command accepts (`--db`), also before the subcommand.
    public let globalOptions: [OptionSpec]

    public init(root: CommandSpec, globalOptions: [OptionSpec]) {
        self.root = root
        self.globalOptions = globalOptions
    }

    public func parse(_ arguments: [String]) throws(ControlError) -> ParsedCommandLine {
        if let refusal = ArgumentText.refusal(of: arguments) { throw .usage(refusal) }
        var tokens = ArraySlice(arguments)
        var node = root
        var path = [root.name]
        var collected = Collected()

        while node.action == nil {
            guard let token = tokens.popFirst() else {
                throw .usage(.missingSubcommand(command: path.joined(separator: " ")))
            }
            if Self.isHelp(token) { return .help(node, commandPath: path.joined(separator: " ")) }
            if token == "--version", path.count == 1 { return .version }
            if token.hasPrefix("-") {
                try read(option: token, from: &tokens, among: globalOptions, into: &collected,
                         command: path.joined(separator: " "))
                continue
            }
            guard let next = node.subcommand(named: token) else {
                throw .usage(.unknownCommand(token, command: path.joined(separator: " ")))
            }
            node = next
            path.append(token)
        }

        let commandPath = path.joined(separator: " ")
        let accepted = node.options + globalOptions
        var optionsEnded = false
        while let token = tokens.popFirst() {
            if optionsEnded || !token.hasPrefix("-") || token == "-" {
                collected.positionals.append(token)
            } else if token == "--" {
                optionsEnded = true
            } else if Self.isHelp(token) {
                return .help(node, commandPath: commandPath)
            } else {
                try read(option: token, from: &tokens, among: accepted, into: &collected, command: commandPath)
            }
        }

        let required = node.positionals.filter { !$0.isOptional }
        if collected.positionals.count < required.count {
            let missing = required[collected.positionals.count]
            throw .usage(.missingArgument(missing.name, command: commandPath))
        }
        if collected.positionals.count > node.positionals.count {
            throw .usage(.unexpectedArgument(collected.positionals[node.positionals.count], command: commandPath))
        }
        return .run(node, ParsedArguments(
            commandPath: commandPath, positionals: collected.positionals,
            values: collected.values, flags: collected.flags))
    }

    private struct Collected {
        var positionals: [String] = []
        var values: [String: [String]] = [:]
        var flags: Set<String> = []
    }

    private static func isHelp(_ token: String) -> Bool { token == "--help" || token == "-h" }

    private func read(
        option token: String, from tokens: inout ArraySlice<String>, among accepted: [OptionSpec],
        into collected: inout Collected, command: String
    ) throws(ControlError) {
        if token.hasPrefix("--") {
            let body = token.dropFirst(2)
            let name: String
            var inline: String?
            if let equals = body.firstIndex(of: "=") {
                name = String(body[..<equals])
                inline = String(body[body.index(after: equals)...])
            } else {
                name = String(body)
            }
            guard let spec = accepted.first(where: { $0.name == name }) else {
                throw .usage(.unknownOption("--" + name, command: command))
            }
            try apply(spec, inline: inline, from: &tokens, into: &collected, command: command)
            return
        }
        // A cluster of short options: "-fy", or "-n5" where the value follows its letter.
        var letters = token.dropFirst()
        while let letter = letters.popFirst() {
            guard let spec = accepted.first(where: { $0.short == letter }) else {
                throw .usage(.unknownOption("-" + String(letter), command: command))
            }
            if spec.takesValue {
                try apply(spec, inline: letters.isEmpty ? nil : String(letters), from: &tokens,
                          into: &collected, command: command)
                return
            }
            try apply(spec, inline: nil, from: &tokens, into: &collected, command: command)
        }
    }

    private func apply(
        _ spec: OptionSpec, inline: String?, from tokens: inout ArraySlice<String>,
        into collected: inout Collected, command: String
    ) throws(ControlError) {
        guard spec.takesValue else {
            if inline != nil { throw .usage(.flagWithValue("--" + spec.name, command: command)) }
            collected.flags.insert(spec.name)
            return
        }
        guard let value = inline ?? tokens.popFirst() else {
            throw .usage(.missingValue("--" + spec.name, valueName: spec.valueName ?? "VALUE", command: command))
        }
        if !spec.repeatable, collected.values[spec.name] != nil {
            throw .usage(.repeatedOption("--" + spec.name, command: command))
        }
        collected.values[spec.name, default: []].append(value)
    }
}
