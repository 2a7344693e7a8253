import TunnelVisionAudit
import TunnelVisionModel
import TunnelVisionStore

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
        let (diff, project) = try read(firstID, secondID, library: library)
        if context.wantsJSON {
            context.emit(JSONShape.ReleaseDiffShape(diff, project: project))
            return
        }
        context.show(DiffPresentation.page(diff, project: project, style: context.style))
    }

    /// Both sessions and their flows in one visit and one read transaction: a diff compares one
    /// instant of the history, never a session read before a write and the other after it. Each
    /// session's flows are walked once, never held. `betweenTheTwo` runs after the first session
    /// is read and before the second: a write there from another connection is not seen.
    static func read(
        _ firstID: Int64, _ secondID: Int64, library: ControlLibrary, betweenTheTwo: () throws -> Void = {}
    ) throws(ControlError) -> (ReleaseDiff, AuditProject) {
        try library.read { store in
            let first = try SessionEvidence.read(sessionID: firstID, in: store)
            try betweenTheTwo()
            let second = try SessionEvidence.read(sessionID: secondID, in: store)
            let diff = try first.walkingFlows(in: store) { firstFlows in
                try second.walkingFlows(in: store) { secondFlows throws(ControlError) in
                    // A refusal is a rule of the model, not a history that did not answer:
                    // it must not be classified as one.
                    do throws(ReleaseDiff.Refusal) {
                        return try ReleaseDiff(
                            between: first.session, flows: firstFlows, and: second.session, flows: secondFlows, project: first.project)
                    } catch {
                        throw .refusal(.diff(refusal(error, firstID: firstID)))
                    }
                }
            }
            return (diff, first.project)
        }
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
