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
            assessment, session: read.session, projectName: read.project.name, flows: read.flows.count, style: context.style))
    }
}

extension FindingsCommand {
    static func assess(_ id: Int64, library: ControlLibrary) throws(ControlError) -> (SessionEvidence, SessionAssessment) {
        let read = try SessionEvidence.read(sessionID: id, library: library)
        let catalogue = try CatalogueCommands.catalogue(for: read.project)
        return (read, SessionAssessment(
            catalogue: catalogue, flows: read.flows, project: read.project, session: read.session, markers: read.markers))
    }

    /// What the bundle's findings.json would say of this session, numbered alike.
    static func document(_ read: SessionEvidence, _ assessment: SessionAssessment) -> EvidenceFindingsDocument {
        EvidenceFindingsDocument(
            sessionID: read.session.id, assessment: assessment, identifiers: EvidenceFindingIdentifiers(assessment.findings.findings))
    }
}

/// A session with everything a classification reads: its project, markers and every flow.
struct SessionEvidence {
    let session: Recording
    let project: AuditProject
    let markers: [SessionMarker]
    let flows: [StoredFlow]

    static func read(sessionID: Int64, library: ControlLibrary) throws(ControlError) -> SessionEvidence {
        try library.read { store in try read(sessionID: sessionID, in: store) }
    }

    /// Two sessions in one visit and one read transaction: a diff compares one instant of the
    /// history, never a session read before a write and the other after it.
    /// `betweenTheTwo` runs after the first session is read and before the second: a test writes
    /// there from another connection and sees that the second read does not notice.
    static func read(
        _ first: Int64, _ second: Int64, library: ControlLibrary, betweenTheTwo: () throws -> Void = {}
    ) throws(ControlError) -> (SessionEvidence, SessionEvidence) {
        try library.read { store in
            let earlier = try read(sessionID: first, in: store)
            try betweenTheTwo()
            return (earlier, try read(sessionID: second, in: store))
        }
    }

    private static func read(sessionID: Int64, in store: HistorySnapshot) throws -> SessionEvidence {
        let session = try SessionReference.session(sessionID, in: store)
        guard let project = try store.auditProject(id: session.projectID) else {
            throw ControlError.refusal(.projectNotFound(String(session.projectID)))
        }
        return SessionEvidence(
            session: session, project: project, markers: try store.markers(forSession: sessionID),
            flows: try store.flows(inRecording: sessionID, limit: Int.max))
    }
}
