import Foundation
import TunnelVisionArchive
import TunnelVisionModel
import TunnelVisionStore

/// The lab's projects on this gateway: what the archive holds comes down (through the checks
/// `tvctl project` applies), an edit made here goes up, and a project changed on both sides
/// since they last agreed is refused in one sentence, never merged. A project deleted in the
/// archive is deleted here only when this gateway neither edited it since nor holds a recording
/// of it: deleting a project deletes its recordings, and a lab's decision elsewhere must never
/// remove this gateway's evidence. Such a project is kept here; a pull does not send it up again
/// (publishing one of its recordings does: the recording needs its project).
enum ArchiveProjectSync {
    /// What one run changed, for the sentences; conflicts are answered, not thrown, so that a
    /// push still publishes recordings.
    struct Outcome {
        var pulled: [String] = []
        var published: [String] = []
        var conflicts: [String] = []
        var deleted: [String] = []
        /// Deleted in the archive, kept here: the project's name and how many recordings hold it.
        var kept: [(name: String, recordings: Int)] = []
    }

    static func run(
        _ projects: ArchiveProjects, state: inout ArchiveState, library: ControlLibrary, _ context: CommandContext
    ) throws(ControlError) -> Outcome {
        var outcome = Outcome()
        let now = try context.storableNow()
        let archived: [ArchivedProject]
        do { archived = try projects.all() } catch { throw .refusal(.archive(error)) }
        let local = try library.visit { store in try store.auditProjects() }
        let localByName = Dictionary(local.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for project in archived {
            let agreed = state.projects[project.name]
            guard let mine = localByName[project.name] else {
                try create(project, library: library, now: now, context)
                state.agree(on: project)
                outcome.pulled.append(project.name)
                continue
            }
            let mineContent = ArchivedProject(mine).content
            if mineContent == project.content {
                state.agree(on: project)
            } else if let agreed, agreed.content == mineContent, project.revision > agreed.revision {
                try update(mine.id, to: project, library: library, context)
                state.agree(on: project)
                outcome.pulled.append(project.name)
            } else if let agreed, agreed.revision == project.revision,
                      let revision = try publish(ArchivedProject(mine), over: project.revision, projects, createdAt: mine.createdAt) {
                state.agree(on: ArchivedProject(mine), revision: revision)
                outcome.published.append(project.name)
            } else {
                outcome.conflicts.append(project.name)
            }
        }
        let names = Set(archived.map(\.name))
        for mine in local where !names.contains(mine.name) {
            let form = ArchivedProject(mine)
            if let agreed = state.projects[mine.name] {
                // The archive had it and has it no more: deleted there.
                let recordings = try library.read { store in try store.recordings(forProject: mine.id).count }
                if recordings > 0 {
                    outcome.kept.append((mine.name, recordings))
                } else if agreed.content != form.content {
                    outcome.conflicts.append(mine.name)
                } else {
                    try library.visit { store in try store.deleteAuditProject(id: mine.id) }
                    state.projects[mine.name] = nil
                    outcome.deleted.append(mine.name)
                }
                continue
            }
            if let revision = try publish(form, over: nil, projects, createdAt: mine.createdAt) {
                state.agree(on: form, revision: revision)
                outcome.published.append(mine.name)
            } else {
                outcome.conflicts.append(mine.name)
            }
        }
        return outcome
    }

    private static func publish(
        _ project: ArchivedProject, over revision: Int?, _ projects: ArchiveProjects, createdAt: Date
    ) throws(ControlError) -> Int? {
        do { return try projects.publish(project, over: revision, at: createdAt.nanosecondsSinceEpoch) } catch { throw .refusal(.archive(error)) }
    }

    /// The archive's project as a draft, through `tvctl project`'s own checks.
    private static func draft(_ project: ArchivedProject, _ context: CommandContext) throws(ControlError) -> AuditProjectDraft {
        var entries: [AllowlistEntry] = []
        for entry in project.allowlist {
            entries.append(try ProjectCommands.allowlistEntry(entry.pattern, note: entry.note ?? "", context: context))
        }
        return AuditProjectDraft(
            name: project.name, bundleIdentifier: project.bundleIdentifier,
            catalogueVersion: try project.catalogueVersion.map(ProjectCommands.installedCatalogue), allowlist: entries)
    }

    private static func create(_ project: ArchivedProject, library: ControlLibrary, now: Date, _ context: CommandContext) throws(ControlError) {
        let draft = try draft(project, context)
        _ = try library.visit { store in try store.createAuditProject(draft, at: now) }
    }

    private static func update(_ id: Int64, to project: ArchivedProject, library: ControlLibrary, _ context: CommandContext) throws(ControlError) {
        let draft = try draft(project, context)
        _ = try library.visit { store in try store.updateAuditProject(id: id, with: draft) }
    }
}
