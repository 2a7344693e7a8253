import TunnelVisionAudit
import TunnelVisionModel

/// `tvctl diff EARLIER LATER`: what changed between two releases of one project.
enum DiffCommand {
    static let spec = CommandSpec(
        "diff", summary: "Compare two releases of a project: new, gone and undetermined domains, TLS changes.",
        discussion: "The later session is the one that started later, whatever the order given. Both must be ended audit sessions of the same project (a baseline has no release). Domains are judged against today's allowlist.",
        positionals: [.required("EARLIER", "A session's number."), .required("LATER", "Another session's number.")],
        options: [SharedOptions.json],
        examples: [
            CommandExample("tvctl diff 5 7", "What release 7 contacts that release 5 did not, and the reverse."),
            CommandExample("tvctl diff 5 7 --json | jq .unexpectedNewDomains", "Only the new domains outside the allowlist."),
        ],
        action: CommandContext.runs(run))

    static func run(_ context: CommandContext) throws(ControlError) {
        try compare(context.sessionID(0), context.sessionID(1), library: context.library, context)
    }

    /// The diff of two recordings of one history: a gateway's, or the one `tvctl archive diff`
    /// rebuilds from two gateways' recordings, so both are judged and said alike.
    static func compare(_ firstID: Int64, _ secondID: Int64, library: ControlLibrary, _ context: CommandContext) throws(ControlError) {
        let (first, second) = try SessionEvidence.read(firstID, secondID, library: library)
        // Built outside the visit: a refusal here is a rule of the model, not a history that
        // did not answer, and must not be classified as one.
        let diff: ReleaseDiff
        do {
            diff = try ReleaseDiff(
                between: first.session, flows: first.flows, and: second.session, flows: second.flows, project: first.project)
        } catch {
            throw .refusal(.diff(refusal(error, firstID: firstID)))
        }
        let project = first.project
        if context.wantsJSON {
            context.emit(JSONShape.ReleaseDiffShape(diff, project: project))
            return
        }
        context.show(DiffPresentation.page(diff, project: project, style: context.style))
    }

    private static func refusal(_ refusal: ReleaseDiff.Refusal, firstID: Int64) -> DiffRefusal {
        switch refusal {
        case .sameSession: .sameSession(firstID)
        case .differentProjects, .notTheSessionsProject: .differentProjects
        case .baseline(let id): .baseline(sessionID: id)
        case .stillOpen(let id): .stillOpen(sessionID: id)
        }
    }
}
