/// The `--help` page of any node of the command tree.
public enum HelpText {
    public static func page(for spec: CommandSpec, commandPath: String, globalOptions: [OptionSpec]) -> String {
        var lines = ["\(commandPath) — \(spec.summary)", "", "Usage: " + usage(of: spec, commandPath: commandPath)]
        if let discussion = spec.discussion {
            lines += [""] + wrapped(discussion, width: 92)
        }
        if !spec.subcommands.isEmpty {
            lines += ["", "Commands:"]
            lines += columns(spec.subcommands.map { ($0.name, $0.summary) })
            lines += ["", "Run '\(commandPath) COMMAND --help' for the options of each."]
        }
        if !spec.positionals.isEmpty {
            lines += ["", "Arguments:"]
            lines += columns(spec.positionals.map { ($0.name, $0.summary) })
        }
        let options = (spec.action == nil ? [] : spec.options) + globalOptions + [helpOption]
        lines += ["", "Options:"]
        lines += columns(options.map { ($0.signature, $0.summary) })
        if !spec.examples.isEmpty {
            lines += ["", "Examples:"]
            for example in spec.examples {
                lines += ["  " + example.commandLine, "      " + example.effect]
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static let helpOption = OptionSpec.flag("help", short: "h", "Show this help.")

    /// "tvctl session end [ID] [options]".
    public static func usage(of spec: CommandSpec, commandPath: String) -> String {
        if spec.action == nil { return commandPath + " COMMAND [options]" }
        var words = [commandPath]
        words += spec.positionals.map { $0.isOptional ? "[\($0.name)]" : $0.name }
        words.append("[options]")
        return words.joined(separator: " ")
    }

    /// The text broken between words into lines no wider than the width (a longer word stands alone).
    static func wrapped(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    private static func columns(_ rows: [(String, String)]) -> [String] {
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { name, summary in
            "  " + name + String(repeating: " ", count: width - name.count + 3) + summary
        }
    }
}
