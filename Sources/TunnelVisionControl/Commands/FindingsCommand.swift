import Foundation
import TunnelVisionAudit
import TunnelVisionEvidence
import TunnelVisionModel
import TunnelVisionStore

/// `tvctl findings SESSION`: what a session's traffic shows, per requirement of its project's catalogue.
enum FindingsCommand {
    static let spec = CommandSpec(
        "findings", summary: "What a session's traffic shows: a verdict per requirement, the findings, each check's reach.",
        discussion: "A verdict is what the traffic showed, never the assessor's test result: 'observed without contradiction' is bounded by what the tool can see (printed under the table). The project's catalogue is used, or the default one.",
        positionals: [SessionCommands.sessionArgument], options: [SharedOptions.json],
        examples: [
            CommandExample("tvctl findings 7", "The requirements, findings and checks of session 7."),
            CommandExample("tvctl findings 7 --json | jq '.findings[] | select(.kind == \"hostNotInAllowlist\") | .host'", "The hosts outside the allowlist."),
        ],
        action: CommandContext.runs(run))

    static func run(_ context: CommandContext) throws(ControlError) {
        try show(context.sessionID(0), library: context.library, context)
    }

    /// A recording's findings in one history: a gateway's, or one the archive rebuilt.
    static func show(_ id: Int64, library: ControlLibrary, _ context: CommandContext) throws(ControlError) {
        let (read, assessment) = try assess(id, library: library)
        if context.wantsJSON {
            context.emit(document(read, assessment))
            return
        }
        context.show(FindingsPresentation.page(
            assessment, session: read.session, projectName: read.project.name, flows: read.flowCount, style: context.style))
    }
}

extension FindingsCommand {
    /// The flows are walked inside the read, one at a time, and never held.
    static func assess(_ id: Int64, library: ControlLibrary) throws(ControlError) -> (SessionEvidence, SessionAssessment) {
        try library.read { store in
            let read = try SessionEvidence.read(sessionID: id, in: store)
            let catalogue = try CatalogueCommands.catalogue(for: read.project)
            return (read, try read.walkingFlows(in: store) { flows in
                SessionAssessment(catalogue: catalogue, flows: flows, project: read.project, session: read.session, markers: read.markers)
            })
        }
    }

    /// What the bundle's findings.json would say of this session, numbered alike.
    static func document(_ read: SessionEvidence, _ assessment: SessionAssessment) -> EvidenceFindingsDocument {
        EvidenceFindingsDocument(
            sessionID: read.session.id, assessment: assessment, identifiers: EvidenceFindingIdentifiers(assessment.findings.findings))
    }
}

/// A session with what a classification reads besides its flows: its project and markers. The
/// flows themselves are walked from the history inside the same read (`walkingFlows`).
struct SessionEvidence {
    let session: Recording
    let project: AuditProject
    let markers: [SessionMarker]
    let flowCount: Int

    static func read(sessionID: Int64, in store: HistorySnapshot) throws -> SessionEvidence {
        let session = try SessionReference.session(sessionID, in: store)
        guard let project = try store.auditProject(id: session.projectID) else {
            throw ControlError.refusal(.projectNotFound(String(session.projectID)))
        }
        return SessionEvidence(
            session: session, project: project, markers: try store.markers(forSession: sessionID),
            flowCount: try store.flowCount(inRecording: sessionID))
    }

    /// `body` given the session's flows as a walk over `store`'s rows, which must be the read
    /// this evidence came from. A walk cannot throw: a row that cannot be read ends it, and is
    /// thrown once `body` has returned, so that nothing built from a partial walk is used.
    func walkingFlows<Result>(in store: HistorySnapshot, _ body: (FlowWalk) throws -> Result) throws -> Result {
        var failure: (any Error)?
        let id = session.id
        let walk = FlowWalk { each in
            guard failure == nil else { return }
            do { try store.forEachFlow(inRecording: id) { each($0) } } catch { failure = error }
        }
        let result = try body(walk)
        if let failure { throw failure }
        return result
    }
}
