/// An option a command accepts: a flag (`--yes`) or one that takes a value (`--limit N`).
public struct OptionSpec: Sendable, Hashable {
    public let name: String
    public let short: Character?
    /// What the value stands for in help ("N", "PATTERN"); nil for a flag.
    public let valueName: String?
    public let repeatable: Bool
    public let summary: String

    public static func flag(_ name: String, short: Character? = nil, _ summary: String) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: nil, repeatable: false, summary: summary)
    }

    public static func value(
        _ name: String, _ valueName: String, short: Character? = nil, repeatable: Bool = false, _ summary: String
    ) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: valueName, repeatable: repeatable, summary: summary)
    }

    public var takesValue: Bool { valueName != nil }

    /// "--limit N", "-f, --follow".
    var signature: String {
        var text = short.map { "-\($0), " } ?? ""
        text += "--" + name
        if let valueName { text += " " + valueName }
        return text
    }
}

/// A word the command takes by position.
public struct PositionalSpec: Sendable, Hashable {
    public let name: String
    public let summary: String
    public let isOptional: Bool

    public static func required(_ name: String, _ summary: String) -> PositionalSpec {
        PositionalSpec(name: name, summary: summary, isOptional: false)
    }

    public static func optional(_ name: String, _ summary: String) -> PositionalSpec {
        PositionalSpec(name: name, summary: summary, isOptional: true)
    }
}

/// A command line shown in help, with what it does.
public struct CommandExample: Sendable, Hashable {
    public let commandLine: String
    public let effect: String

    public init(_ commandLine: String, _ effect: String) {
        self.commandLine = commandLine
        self.effect = effect
    }
}

/// One node of the command tree: either a group of subcommands or a command that runs.
public struct CommandSpec: Sendable {
    public typealias Action = @Sendable (ParsedArguments, Invocation) throws(ControlError) -> Void

    public let name: String
    public let summary: String
    /// Said under the usage line in help: what the command does that its summary does not.
    public let discussion: String?
    public let positionals: [PositionalSpec]
    public let options: [OptionSpec]
    public let examples: [CommandExample]
    public let subcommands: [CommandSpec]
    public let action: Action?

    public init(
        _ name: String, summary: String, discussion: String? = nil,
        positionals: [PositionalSpec] = [], options: [OptionSpec] = [], examples: [CommandExample] = [],
        action: @escaping Action
    ) {
        self.name = name
        self.summary = summary
        self.discussion = discussion
        self.positionals = positionals
        self.options = options
        self.examples = examples
        self.subcommands = []
        self.action = action
    }

    public init(
        group name: String, summary: String, discussion: String? = nil,
        examples: [CommandExample] = [], subcommands: [CommandSpec]
    ) {
        self.name = name
        self.summary = summary
        self.discussion = discussion
        self.positionals = []
        self.options = []
        self.examples = examples
        self.subcommands = subcommands
        self.action = nil
    }

    public func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }
}
