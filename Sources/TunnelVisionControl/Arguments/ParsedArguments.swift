/// What a command line said, once it was checked against the command it names.
public struct ParsedArguments: Sendable, Hashable {
    /// "tvctl project allow": how help and errors name the command.
    public let commandPath: String
    public let positionals: [String]
    private let values: [String: [String]]
    private let flags: Set<String>

    init(commandPath: String, positionals: [String], values: [String: [String]], flags: Set<String>) {
        self.commandPath = commandPath
        self.positionals = positionals
        self.values = values
        self.flags = flags
    }

    /// Whether the flag was given. Asked by its spec, so a name is spelled once, where it is declared.
    public func flag(_ option: OptionSpec) -> Bool { flags.contains(option.name) }

    /// The value of an option given at most once.
    public func value(_ option: OptionSpec) -> String? { values[option.name]?.last }

    /// Every value of a repeatable option, in the order given.
    public func values(_ option: OptionSpec) -> [String] { values[option.name] ?? [] }

    // By name: for the parser's own tests, and for `export` until it asks by spec.
    func flag(_ name: String) -> Bool { flags.contains(name) }
    func value(_ name: String) -> String? { values[name]?.last }
    func values(_ name: String) -> [String] { values[name] ?? [] }

    public func positional(_ index: Int) -> String? {
        positionals.indices.contains(index) ? positionals[index] : nil
    }

    /// The value of an option that must be a whole number in a range.
    public func integer(_ option: OptionSpec, in range: ClosedRange<Int>) throws(ControlError) -> Int? {
        guard let text = value(option) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw .usage(.invalidNumber(option: option.name, text: text, range: range, command: commandPath))
        }
        return number
    }
}
