import Foundation
import TunnelVisionAudit
import TunnelVisionModel

/// `tvctl catalogue …`: the requirement catalogues findings are judged against.
enum CatalogueCommands {
    static let group = CommandSpec(
        group: "catalogue", summary: "The requirement catalogues: list, show, check a file.",
        discussion: "Catalogues are read from \(RequirementCatalogueLibrary.installedDirectory.path) (or $\(RequirementCatalogueLibrary.environmentKey)). A project names one, or is assessed against \(RequirementCatalogueLibrary.defaultIdentifier).",
        examples: [CommandExample("tvctl catalogue show \(RequirementCatalogueLibrary.defaultIdentifier)", "Every requirement of the shipped catalogue.")],
        subcommands: [list, show, check])

    static let list = CommandSpec(
        "list", summary: "List the installed catalogues.",
        options: [SharedOptions.json],
        examples: [CommandExample("tvctl catalogue list", "The catalogues a project can name.")],
        action: CommandContext.runs(list))

    static let show = CommandSpec(
        "show", summary: "Show a catalogue's sources and requirements.",
        positionals: [.required("ID", "The catalogue's identifier.")], options: [SharedOptions.json],
        examples: [CommandExample("tvctl catalogue show \(RequirementCatalogueLibrary.defaultIdentifier) --json", "The catalogue, for a script.")],
        action: CommandContext.runs(show))

    static let check = CommandSpec(
        "check", summary: "Check that a catalogue file would be accepted, before installing it.",
        positionals: [.required("FILE", "The catalogue's JSON file.")], options: [SharedOptions.json],
        examples: [CommandExample("tvctl catalogue check ./tr-03161-1_3.0.json", "Says it is usable, or the first place it is not.")],
        action: CommandContext.runs(check))

    // MARK: Actions

    struct ListedCatalogue: Encodable {
        let identifier: String
        let isDefault: Bool
        let usable: Bool
        let problem: String?
        let catalogue: JSONShape.CatalogueSummary?
    }

    static func list(_ context: CommandContext) throws(ControlError) {
        let installed: [InstalledCatalogue]
        do {
            installed = try RequirementCatalogueLibrary.list()
        } catch {
            throw .refusal(.catalogue(refusal(error)))
        }
        let listed = installed.map { entry in
            switch entry.standing {
            case .usable(let catalogue):
                ListedCatalogue(identifier: entry.identifier, isDefault: entry.identifier == RequirementCatalogueLibrary.defaultIdentifier,
                                usable: true, problem: nil, catalogue: JSONShape.CatalogueSummary(catalogue))
            case .unusable(let reason):
                ListedCatalogue(identifier: entry.identifier, isDefault: entry.identifier == RequirementCatalogueLibrary.defaultIdentifier,
                                usable: false, problem: Wording.phrase(for: reason), catalogue: nil)
            }
        }
        if context.wantsJSON {
            context.emit(listed)
            return
        }
        var table = TextTable([.init("IDENTIFIER"), .init("DOCUMENT"), .init("VERSION"), .init("DATE"),
                               .init("REQUIREMENTS", .right), .init("TLS MINIMUM"), .init("STANDING")])
        for entry in listed {
            let summary = entry.catalogue
            table.append([
                entry.identifier + (entry.isDefault ? " (default)" : ""), summary?.document ?? AuditTables.none,
                summary?.version ?? AuditTables.none, summary?.date ?? AuditTables.none,
                summary.map { String($0.requirementCount) } ?? AuditTables.none, summary?.tlsMinimum ?? AuditTables.none,
                entry.problem.map { "unusable: " + $0 } ?? "usable",
            ])
        }
        context.show(table)
    }

    struct CataloguePage: Encodable {
        let catalogue: JSONShape.CatalogueSummary
        let requirements: [JSONShape.RequirementShape]
    }

    static func show(_ context: CommandContext) throws(ControlError) {
        let catalogue = try installed(identifier: context.word(0))
        if context.wantsJSON {
            context.emit(CataloguePage(catalogue: JSONShape.CatalogueSummary(catalogue),
                                       requirements: catalogue.requirements.map(JSONShape.RequirementShape.init)))
            return
        }
        var page = context.page
        page.heading("Catalogue \(catalogue.identifier)")
        page.facts([
            ("Document", "\(catalogue.source.document) \(catalogue.source.version) of \(catalogue.source.date)"),
            ("Title", catalogue.source.title),
            ("SHA-256", catalogue.source.sha256),
            ("TLS minimum", "\(catalogue.policy.minimumTLSVersion.displayText), from \(catalogue.tlsSource.document) \(catalogue.tlsSource.version) of \(catalogue.tlsSource.date)"),
        ])
        page.blank()
        var table = TextTable([.init("ID"), .init("ASPECT"), .init("DEPTH"), .init("RULE"), .init("AGAINST"), .init("FOR"), .init("TITLE")])
        for requirement in catalogue.requirements {
            table.append([
                requirement.id, "\(requirement.aspect.number) \(requirement.aspect.name)", requirement.testDepth.rawValue,
                requirement.rule.name.rawValue, kinds(requirement.rule.contraryKinds), kinds(requirement.rule.supportingKinds),
                requirement.title,
            ])
        }
        page.table(table)
        context.show(page)
    }

    struct CheckedFile: Encodable {
        let file: String
        let usable: Bool
        let problem: String?
        let catalogue: JSONShape.CatalogueSummary?
    }

    static func check(_ context: CommandContext) throws(ControlError) {
        let path = context.word(0)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .refusal(.catalogue(.fileUnreadable(path: path)))
        }
        let catalogue: RequirementCatalogue
        do {
            catalogue = try RequirementCatalogue(data: data)
        } catch {
            let problem = Wording.phrase(for: error)
            if context.wantsJSON { context.emit(CheckedFile(file: path, usable: false, problem: problem, catalogue: nil)) }
            throw .refusal(.catalogue(.fileRefused(path: path, reason: problem)))
        }
        if context.wantsJSON {
            context.emit(CheckedFile(file: path, usable: true, problem: nil, catalogue: JSONShape.CatalogueSummary(catalogue)))
        } else {
            let fileIdentifier = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            context.say(Wording.catalogueUsable(path: path, catalogue: catalogue, fileIdentifier: fileIdentifier))
        }
    }

    // MARK: Shared with findings and export

    /// The catalogue a project is assessed against, or the refusal that says why there is none.
    static func catalogue(for project: AuditProject) throws(ControlError) -> RequirementCatalogue {
        try installed(identifier: project.catalogueVersion ?? RequirementCatalogueLibrary.defaultIdentifier)
    }

    static func installed(identifier: String) throws(ControlError) -> RequirementCatalogue {
        do {
            return try RequirementCatalogueLibrary.catalogue(identifier: identifier)
        } catch {
            throw .refusal(.catalogue(refusal(error)))
        }
    }

    static func refusal(_ error: RequirementCatalogueLibraryError) -> CatalogueRefusal {
        switch error {
        case .notInstalled(let identifier, _): .notInstalled(identifier: identifier)
        case .unusable(let identifier, let reason): .unusable(identifier: identifier, reason: Wording.phrase(for: reason))
        case .directoryUnreadable(let path): .directoryUnreadable(path: path)
        }
    }

    private static func kinds(_ kinds: [FindingKind]) -> String {
        kinds.isEmpty ? AuditTables.none : kinds.map(\.rawValue).joined(separator: " ")
    }
}
