import TunnelVisionModel
import TunnelVisionStore

/// `tvctl project …`: the apps under audit, their allowlists and catalogues.
enum ProjectCommands {
    static let group = CommandSpec(
        group: "project", summary: "Create, show, change and delete the apps under audit.",
        examples: [
            CommandExample("tvctl project create 'Acme Health' --allow '*.acme.example=backend'", "A project with one allowed domain."),
            CommandExample("tvctl project list --json", "Every project, for a script."),
        ],
        subcommands: [create, list, show, edit, delete, allow, disallow])

    static let projectArgument = PositionalSpec.required("P", "The project, by id or unique name.")

    enum CreateOption {
        static let bundleID = OptionSpec.value("bundle-id", "ID", "The app's bundle identifier (informational: it filters nothing).")
        static let catalogue = OptionSpec.value(
            "catalogue", "ID", "The requirement catalogue it is assessed against (default: the shipped one).")
        static let allow = OptionSpec.value(
            "allow", "PATTERN[=NOTE]", repeatable: true, "An allowed domain, exact or *.suffix, with a note for the report.")
    }

    enum EditOption {
        static let name = OptionSpec.value("name", "NAME", "A new name.")
        static let bundleID = OptionSpec.value("bundle-id", "ID", "A new bundle identifier, or '' for none.")
        static let catalogue = OptionSpec.value("catalogue", "ID", "Another requirement catalogue, or '' for the default.")
    }

    static let noteOption = OptionSpec.value("note", "TEXT", "Why it is allowed; it goes to the report.")

    static let create = CommandSpec(
        "create", summary: "Create a project.",
        discussion: "A project's name must not be taken by another: it is how the other commands find it.",
        positionals: [.required("NAME", "What the project is called (the app's name).")],
        options: [
            CreateOption.bundleID, CreateOption.catalogue, CreateOption.allow, SharedOptions.json,
        ],
        examples: [
            CommandExample(
                "tvctl project create 'Acme Health' --bundle-id com.acme.health --allow '*.acme.example=backend' --allow 'sentry.io=crash reporting'",
                "A project whose app may talk to its backend and its crash reporter."),
        ],
        action: CommandContext.runs(create))

    static let list = CommandSpec(
        "list", summary: "List the projects, newest first.",
        options: [SharedOptions.json],
        examples: [CommandExample("tvctl project list", "A table of every project.")],
        action: CommandContext.runs(list))

    static let show = CommandSpec(
        "show", summary: "Show a project: its allowlist and its sessions.",
        positionals: [projectArgument], options: [SharedOptions.json],
        examples: [CommandExample("tvctl project show 'Acme Health'", "The project, by name.")],
        action: CommandContext.runs(show))

    static let edit = CommandSpec(
        "edit", summary: "Rename a project or change its bundle id or catalogue.",
        discussion: "An empty value clears the bundle id or the catalogue. The allowlist changes with 'allow' and 'disallow'.",
        positionals: [projectArgument],
        options: [
            EditOption.name, EditOption.bundleID, EditOption.catalogue, SharedOptions.json,
        ],
        examples: [CommandExample("tvctl project edit 3 --catalogue tr-03161-1_3.0", "Assess project 3 against that catalogue.")],
        action: CommandContext.runs(edit))

    static let delete = CommandSpec(
        "delete", summary: "Delete a project with its sessions and markers.",
        discussion: "The flows stay in the history, no longer tagged. Asks on a terminal; a script passes --yes.",
        positionals: [projectArgument], options: [SharedOptions.yes],
        examples: [CommandExample("tvctl project delete 3 --yes", "Delete project 3 without asking.")],
        action: CommandContext.runs(delete))

    static let allow = CommandSpec(
        "allow", summary: "Add a domain to a project's allowlist.",
        discussion: "PATTERN is an exact name (api.acme.example) or every name below one (*.acme.example, which is not acme.example itself).",
        positionals: [projectArgument, .required("PATTERN", "The domain, exact or *.suffix.")],
        options: [noteOption, SharedOptions.json],
        examples: [CommandExample("tvctl project allow 'Acme Health' '*.acme.example' --note backend", "Allow the backend's names.")],
        action: CommandContext.runs(allow))

    static let disallow = CommandSpec(
        "disallow", summary: "Remove a domain from a project's allowlist.",
        positionals: [projectArgument, .required("PATTERN", "The pattern as the allowlist shows it.")],
        options: [SharedOptions.json],
        examples: [CommandExample("tvctl project disallow 3 sentry.io", "Stop allowing sentry.io.")],
        action: CommandContext.runs(disallow))

    // MARK: Actions

    static func create(_ context: CommandContext) throws(ControlError) {
        let entries = try context.arguments.values(CreateOption.allow).map { text throws(ControlError) in
            try allowlistEntry(text, note: nil, context: context)
        }
        let draft = AuditProjectDraft(
            name: context.word(0), bundleIdentifier: context.arguments.value(CreateOption.bundleID).flatMap(nonEmpty),
            catalogueVersion: try context.arguments.value(CreateOption.catalogue).flatMap(nonEmpty).map(installedCatalogue),
            allowlist: entries)
        let now = try context.storableNow()
        let project = try context.library.visit { store in
            try refuseTakenName(draft.name, except: nil, in: store)
            return try store.createAuditProject(draft, at: now)
        }
        context.wantsJSON ? context.emit(JSONShape.Project(project)) : context.say(Wording.projectCreated(project))
    }

    static func list(_ context: CommandContext) throws(ControlError) {
        let rows = try context.library.read { store in
            try store.auditProjects().map { ($0, try store.recordings(forProject: $0.id).count) }
        }
        if context.wantsJSON {
            context.emit(rows.map { JSONShape.Project($0.0, sessionCount: $0.1) })
        } else if rows.isEmpty {
            context.say(Wording.noProjects)
        } else {
            context.show(AuditTables.projects(rows.map { (project: $0.0, sessions: $0.1) }, zone: context.zone))
        }
    }

    struct ProjectPage: Encodable {
        let project: JSONShape.Project
        let sessions: [JSONShape.Session]
    }

    static func show(_ context: CommandContext) throws(ControlError) {
        let (project, sessions) = try context.library.read { store in
            let project = try context.project(in: store)
            let sessions = try store.recordings(forProject: project.id).map {
                AuditTables.SessionRow(session: $0, projectName: project.name, flowCount: try store.flowCount(inRecording: $0.id))
            }
            return (project, sessions)
        }
        if context.wantsJSON {
            context.emit(ProjectPage(
                project: JSONShape.Project(project, sessionCount: sessions.count),
                sessions: sessions.map { JSONShape.Session($0.session, projectName: project.name, flowCount: $0.flowCount) }))
            return
        }
        context.show(AuditPages.project(project, sessions: sessions, zone: context.zone, style: context.style))
    }

    static func edit(_ context: CommandContext) throws(ControlError) {
        let arguments = context.arguments
        let newName = arguments.value(EditOption.name)
        let bundle = arguments.value(EditOption.bundleID)
        let catalogue = try arguments.value(EditOption.catalogue).map { text throws(ControlError) in
            try nonEmpty(text).map(installedCatalogue) ?? ""
        }
        guard newName != nil || bundle != nil || catalogue != nil else {
            throw .usage(.missingOption("--name, --bundle-id or --catalogue", command: context.command))
        }
        let project = try context.library.visit { store in
            let project = try context.project(in: store)
            var draft = AuditProjectDraft(project)
            if let newName {
                try refuseTakenName(newName, except: project.id, in: store)
                draft.name = newName
            }
            if let bundle { draft.bundleIdentifier = nonEmpty(bundle) }
            if let catalogue { draft.catalogueVersion = nonEmpty(catalogue) }
            return try store.updateAuditProject(id: project.id, with: draft)
        }
        context.wantsJSON ? context.emit(JSONShape.Project(project)) : context.say(Wording.projectUpdated(project))
    }

    static func delete(_ context: CommandContext) throws(ControlError) {
        let library = context.library
        let (project, sessions) = try library.read { store in
            let project = try context.project(in: store)
            return (project, try store.recordings(forProject: project.id).count)
        }
        try context.confirm(Wording.confirmProjectDeletion(project, sessions: sessions))
        try library.visit { store in try store.deleteAuditProject(id: project.id) }
        context.say(Wording.projectDeleted(project, sessions: sessions))
    }

    static func allow(_ context: CommandContext) throws(ControlError) {
        let entry = try allowlistEntry(context.word(1), note: context.arguments.value(noteOption), context: context)
        let project = try context.library.visit { store in
            let project = try context.project(in: store)
            var draft = AuditProjectDraft(project)
            draft.allowlist.append(entry)
            return try store.updateAuditProject(id: project.id, with: draft)
        }
        if context.wantsJSON {
            context.emit(JSONShape.Project(project))
        } else {
            context.say(Wording.patternAllowed(entry.pattern.text, project: project))
        }
    }

    static func disallow(_ context: CommandContext) throws(ControlError) {
        let typed = context.word(1)
        // The pattern as stored is its canonical text; what was typed may differ in case or a trailing dot.
        let text = (try? DomainPattern(parsing: typed))?.text ?? typed
        let project = try context.library.visit { store in
            let project = try context.project(in: store)
            var draft = AuditProjectDraft(project)
            guard draft.allowlist.contains(where: { $0.pattern.text == text }) else {
                throw ControlError.refusal(.patternNotInAllowlist(text, project: project.name))
            }
            draft.allowlist.removeAll { $0.pattern.text == text }
            return try store.updateAuditProject(id: project.id, with: draft)
        }
        if context.wantsJSON {
            context.emit(JSONShape.Project(project))
        } else {
            context.say(Wording.patternDisallowed(text, project: project))
        }
    }

    // MARK: Helpers

    /// "PATTERN" or "PATTERN=NOTE" (a pattern never holds "=").
    static func allowlistEntry(_ text: String, note: String?, context: CommandContext) throws(ControlError) -> AllowlistEntry {
        var patternText = text
        var entryNote = note
        if note == nil, let equals = text.firstIndex(of: "=") {
            patternText = String(text[..<equals])
            entryNote = String(text[text.index(after: equals)...])
        }
        do {
            return AllowlistEntry(pattern: try DomainPattern(parsing: patternText), note: entryNote)
        } catch {
            throw .usage(.invalidPattern(patternText, reason: error, command: context.command))
        }
    }

    /// Compares the name as the store will keep it (trimmed), so that "Acme Health " cannot
    /// slip past the check and become a second "Acme Health".
    private static func refuseTakenName(_ typed: String, except id: Int64?, in store: History) throws {
        let name = typed.trimmingCharacters(in: .whitespacesAndNewlines)
        if try store.auditProjects().contains(where: { $0.name == name && $0.id != id }) {
            throw ControlError.refusal(.projectNameTaken(name))
        }
    }

    /// A project names a catalogue that is installed and usable, so that its findings can be
    /// assessed; the library looks up plain names only, never a path.
    static func installedCatalogue(_ identifier: String) throws(ControlError) -> String {
        _ = try CatalogueCommands.installed(identifier: identifier)
        return identifier
    }

    private static func nonEmpty(_ text: String) -> String? {
        text.isEmpty ? nil : text
    }
}
