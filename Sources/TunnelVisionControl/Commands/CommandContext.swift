import Foundation
import TunnelVisionEvidence
import TunnelVisionModel

/// What every command reaches for: its arguments, the library over the chosen history, and
/// the way it answers (a table for people, JSON for scripts). Package-wide so that the
/// development tools beside tvctl (tvfixture) are commands of the same kind.
package struct CommandContext {
    package let arguments: ParsedArguments
    package let invocation: Invocation

    init(_ arguments: ParsedArguments, _ invocation: Invocation) {
        self.arguments = arguments
        self.invocation = invocation
    }

    /// A command's action, from a function that takes the context.
    package static func runs(_ body: @escaping @Sendable (CommandContext) throws(ControlError) -> Void) -> CommandSpec.Action {
        { arguments, invocation throws(ControlError) in try body(CommandContext(arguments, invocation)) }
    }

    package var library: ControlLibrary {
        ControlLibrary(location: DatabaseLocation(option: arguments.value(SharedOptions.database), environment: invocation.environment))
    }

    package var wantsJSON: Bool { arguments.flag(SharedOptions.json) }
    var style: TextStyle { invocation.style }
    package var command: String { arguments.commandPath }

    /// Local time for people: the zone TZ names, else the system's.
    var zone: TimeZone { .current }

    package func say(_ line: String = "") { invocation.console.print(line) }

    package func emit(_ value: some Encodable) {
        invocation.console.writeOutput(JSONShape.encoded(value))
    }

    package func emit(_ value: some EvidenceJSONWritable) {
        invocation.console.writeOutput(JSONShape.encoded(value))
    }

    func show(_ table: TextTable) {
        invocation.console.writeOutput(table.rendered(style: style))
    }

    func show(_ page: Page) {
        invocation.console.writeOutput(page.text)
    }

    /// A page in this command's style, to be filled.
    var page: Page { Page(style: style) }

    /// A required positional word (the parser has checked it is there).
    func word(_ index: Int) -> String { arguments.positional(index) ?? "" }

    /// The session id a positional word names, refused as usage when it is not one.
    func sessionID(_ index: Int) throws(ControlError) -> Int64 { try SessionReference.id(word(index), command: command) }

    /// The project the first positional word names, by id or unique name.
    func project(in store: some AuditReading) throws -> AuditProject { try ProjectReference(word(0)).resolve(in: store) }

    /// Deleting asks a person and needs `--yes` from a script.
    func confirm(_ question: String) throws(ControlError) {
        if arguments.flag(SharedOptions.yes) { return }
        guard invocation.console.inputIsTerminal else { throw .usage(.confirmationNeeded(command: command)) }
        invocation.console.writeError(question)
        let answer = invocation.console.readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else { throw .refusal(.deletionDeclined) }
    }
}

/// Options more than one command shares, spelled once.
package enum SharedOptions {
    package static let json = OptionSpec.flag("json", "Answer in JSON, for scripts.")
    static let yes = OptionSpec.flag("yes", short: "y", "Delete without asking (needed when not on a terminal).")
    package static let database = OptionSpec.value(
        "db", "PATH", "The history database (default: $TUNNELVISION_DB, else \(DatabaseLocation.daemonDefault)).")
}

extension CommandContext {
    /// The invocation's clock for an instant the command stores, refused when the clock reads
    /// one the history cannot hold (past 2262-04-11): stored, it would be some other instant.
    package func storableNow() throws(ControlError) -> Date {
        let now = invocation.clock()
        guard now.isStorable else { throw .usage(.instantOutOfRange(Formatting.iso8601(now), command: command)) }
        return now
    }
}
