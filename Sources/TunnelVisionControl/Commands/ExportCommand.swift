/// `tvctl export SESSION`: the evidence bundle of an ended session.
enum ExportCommand {
    static let spec = CommandSpec(
        "export", summary: "Write the evidence bundle of an ended session: a folder and its .zip.",
        positionals: [SessionCommands.sessionArgument],
        options: [.value("output", "DIR", "Where the .zip goes (default: the current directory)."), SharedOptions.json],
        examples: [CommandExample("tvctl export 7 --output ~/evidence", "Session 7's bundle, zipped, in ~/evidence.")],
        action: { _, _ throws(ControlError) in throw .refusal(.export(Wording.exportUnavailable)) })
}
