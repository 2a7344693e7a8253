/// Every command tvctl has, in the order its help lists them.
enum CommandTree {
    static let root = CommandSpec(
        group: "tvctl",
        summary: "control TunnelVision: projects, recordings, markers, findings and evidence.",
        discussion: """
            Reads print a table, or JSON with --json. Exit status: 0 done, 1 refused (the message says \
            what to do), 2 the command line was not understood, 3 the history did not answer. \
            Colour only on a terminal, never with NO_COLOR set.
            """,
        examples: [
            CommandExample("tvctl status", "Is the daemon capturing, and what is recording?"),
            CommandExample("tvctl session start 'Acme Health' --release 2.4.1 --build 310 --device 'Pixel 8' --os 'Android 15'", "Start recording a release."),
            CommandExample("tvctl mark consent", "Mark the instant the user consented."),
            CommandExample("tvctl findings 7", "What session 7's traffic shows, per requirement."),
        ],
        subcommands: [
            StatusCommand.spec, ProjectCommands.group, PhoneCommands.group, SessionCommands.group, MarkCommand.spec,
            FlowsCommand.spec, FindingsCommand.spec, DiffCommand.spec, ExportCommand.spec, VerifyCommand.spec,
            CatalogueCommands.group, ArchiveCommands.group, CACommand.group, KeyCommands.group, ConsoleCommands.group,
        ])
}
