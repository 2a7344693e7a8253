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

    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value of an option given at most once.
    public func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable option, in the order given.
    public func values(_ name: String) -> [String] { values[name] ?? [] }

    public func positional(_ index: Int) -> String? {
        positionals.indices.contains(index) ? positionals[index] : nil
    }

    /// The value of an option that must be a whole number in a range.
    public func integer(_ name: String, in range: ClosedRange<Int>) throws(ControlError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw .usage(.invalidNumber(option: name, text: text, range: range, command: commandPath))
        }
        return number
    }
}
