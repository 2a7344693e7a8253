import Foundation
import Synchronization
import TunnelVisionControl

/// `tvfixture`: a seeded project for demos and tests. A development tool beside tvctl, built
/// from tvctl's own command machinery (the same history opening, refusals and JSON), which no
/// product links: an installed gateway's history holds only what was recorded.
public enum TVFixture {
    /// Runs one command line (without the program name); the exit statuses are tvctl's.
    public static func run(_ arguments: [String], invocation: Invocation) -> Int32 {
        TVCtl.run(arguments, invocation: invocation, parser: parser, program: "tvfixture")
    }

    /// Seeds the history at the path in this process, for suites that drive tvctl's commands
    /// in process (the console's): the exit status and what was said on standard error.
    public static func seed(database: String, _ arguments: [String] = [], toolVersion: String = "test") -> (status: Int32, error: String) {
        let errors = Mutex("")
        let console = Console(
            writeOutput: { _ in }, writeError: { text in errors.withLock { $0 += text } }, readLine: { nil },
            outputIsTerminal: false, inputIsTerminal: false)
        let invocation = Invocation(
            console: console, environment: ["TUNNELVISION_DB": database], startedAt: Date(), toolVersion: toolVersion)
        let status = run(arguments, invocation: invocation)
        return (status, errors.withLock { $0 })
    }

    static let parser = ArgumentParser(root: FixtureCommand.spec, globalOptions: [SharedOptions.database])
}

enum FixtureCommand {
    enum Option {
        static let name = OptionSpec.value("name", "NAME", "The project's name (default: \(defaultName)).")
        static let at = OptionSpec.value(
            "at", "INSTANT", "When the seeded history begins, as 2026-10-01T09:00:00Z (default: an hour ago).")
    }

    static let spec = CommandSpec(
        "tvfixture", summary: "Seed a demo project: a baseline and an audit session, both ended, with synthetic flows.",
        discussion: "The flows are written the way the daemon writes them, while each session is open, so the store tags them. Creates the database when there is none. Refused when a project of that name exists.",
        options: [
            Option.name, Option.at, SharedOptions.json,
        ],
        examples: [
            CommandExample("tvfixture --db /tmp/demo.sqlite", "A demo history to try every command on."),
            CommandExample("tvfixture --at 2026-10-01T09:00:00Z --json", "The same instants every time, for a test."),
        ],
        action: CommandContext.runs(run))

    static let defaultName = "Acme Health"

    struct SeededShape: Encodable {
        let project: JSONShape.Project
        let baseline: JSONShape.Session
        let audit: JSONShape.Session
        let flowCount: Int
    }

    static func run(_ context: CommandContext) throws(ControlError) {
        var start = try context.storableNow().addingTimeInterval(-3600)
        if let text = context.arguments.value(Option.at) {
            guard let instant = Formatting.instant(from: text) else { throw .usage(.invalidInstant(text, command: context.command)) }
            start = instant
        }
        let fixture = AuditFixture(
            projectName: context.arguments.value(Option.name) ?? defaultName, start: start, toolVersion: context.invocation.toolVersion)
        // The seeded history ends an hour after it begins: all of it must be storable instants.
        guard start.isStorable, start.addingTimeInterval(2 * 3600).isStorable else {
            throw .usage(.instantOutOfRange(context.arguments.value(Option.at) ?? Formatting.iso8601(start), command: context.command))
        }
        let seeded = try context.library.visit(creatingHistory: true) { store in
            try store.inOneTransaction { try fixture.seed(into: store) }
        }
        if context.wantsJSON {
            let name = seeded.project.name
            context.emit(SeededShape(
                project: JSONShape.Project(seeded.project), baseline: JSONShape.Session(seeded.baseline, projectName: name),
                audit: JSONShape.Session(seeded.audit, projectName: name), flowCount: seeded.flowCount))
        } else {
            context.say(FixtureWording.seeded(
                project: seeded.project, baseline: seeded.baseline.id, audit: seeded.audit.id, flows: seeded.flowCount))
        }
    }
}
