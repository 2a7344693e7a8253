import Foundation
import TunnelVisionAudit
import TunnelVisionEvidence
import TunnelVisionModel
import TunnelVisionStore

/// `tvctl flows`: the flows of a session, once or as a live view while it records.
enum FlowsCommand {
    static let spec = CommandSpec(
        "flows", summary: "Show the flows of a session (the open one unless named).",
        discussion: "Oldest first; with --newest, --limit keeps the newest N instead of the first. With --follow the view stays open while the session records: on a terminal it is redrawn in place every second; otherwise each new flow is appended as a line (with --json, one JSON object per line). It stops when the session ends.",
        positionals: [.optional("SESSION", "The session's number.")],
        options: [
            limitOption, newestOption, followOption, requestsOption, SessionCommands.StartOption.phone, SharedOptions.json,
        ],
        examples: [
            CommandExample("tvctl flows", "The flows of what is recording now."),
            CommandExample("tvctl flows 7 --limit 500 --json", "Up to 500 flows of session 7, for a script."),
            CommandExample("tvctl flows --limit 20 --newest", "The 20 flows that began last."),
            CommandExample("tvctl flows -f", "Watch the recording live."),
            CommandExample("tvctl flows 7 --requests", "Session 7's flows, each with the requests the relay read inside it."),
        ],
        action: CommandContext.runs(run))

    static let limitOption = OptionSpec.value(
        "limit", "N", short: "n", "Show at most N flows (default \(defaultLimit); with --json, all unless given).")
    static let newestOption = OptionSpec.flag("newest", "With --limit N, the newest N flows instead of the first N.")
    static let followOption = OptionSpec.flag("follow", short: "f", "Keep showing flows while the session records.")
    static let requestsOption = OptionSpec.flag(
        "requests", "Under each flow, the requests the relay read inside it: when, method, host, body bytes, response status (JSON always has them).")
    static let defaultLimit = 100
    static let limitRange = 1...10_000_000

    static func run(_ context: CommandContext) throws(ControlError) {
        let givenLimit = try context.arguments.integer(limitOption, in: limitRange)
        let limit = givenLimit ?? defaultLimit
        let named = try context.arguments.positional(0).map { text throws(ControlError) in
            try SessionReference.id(text, command: context.command)
        }
        let phone = context.arguments.value(SessionCommands.StartOption.phone)
        if context.arguments.flag(followOption) {
            try FlowsFollow.start(session: named, phone: phone, limit: limit, context: context)
            return
        }
        // JSON carries each flow's findings, and they are assessed on every flow of the session.
        let newest = context.arguments.flag(newestOption)
        let snapshot = try FlowSnapshot.read(
            session: named, phone: phone, limit: context.wantsJSON ? Int.max : limit, newest: newest, library: context.library)
        if context.wantsJSON {
            context.emit(try snapshot.list(limit: givenLimit, newest: newest))
            return
        }
        context.say(snapshot.headline(zone: context.zone))
        if !snapshot.flows.isEmpty {
            context.show(FlowListing.table(snapshot.flows, zone: context.zone, withRequests: context.arguments.flag(requestsOption)))
        }
        if snapshot.flowCount > snapshot.flows.count {
            context.say(newest ? Wording.newestFlowsTruncated(shown: snapshot.flows.count, of: snapshot.flowCount)
                : Wording.flowsTruncated(shown: snapshot.flows.count, of: snapshot.flowCount))
        }
    }
}

/// A session and its flows as read in one visit.
struct FlowSnapshot {
    let session: Recording
    let project: AuditProject?
    let markers: [SessionMarker]
    let flowCount: Int
    let flows: [StoredFlow]
    /// Every flow changed after it was read has a higher marker.
    let marker: FlowChangeMarker
    /// The relay's facts of those flows, by flow id (docs/ARCHITECTURE.md § The relay).
    let relayFacts: [Int64: RelayFacts]

    var projectName: String { project?.name ?? "" }

    static func read(
        session named: Int64?, phone: String? = nil, limit: Int, newest: Bool = false, library: ControlLibrary
    ) throws(ControlError) -> FlowSnapshot {
        try library.read { store in
            let session: Recording
            if let named {
                session = try SessionReference.session(named, in: store)
            } else {
                session = try OpenRecordingReference.session(phone: phone, purpose: .flows, in: store)
            }
            return FlowSnapshot(
                session: session, project: try store.auditProject(id: session.projectID),
                markers: try store.markers(forSession: session.id),
                flowCount: try store.flowCount(inRecording: session.id),
                flows: newest ? try store.newestFlows(inRecording: session.id, limit: limit)
                    : try store.flows(inRecording: session.id, limit: limit),
                marker: try store.flowChangeMarker(),
                relayFacts: try store.relayFacts(inRecording: session.id))
        }
    }

    func headline(zone: TimeZone) -> String {
        Wording.flowsHeadline(session, project: projectName, flows: flowCount, zone: zone)
    }

    /// The flows as flows.json writes them, with the findings a bundle would give them: the
    /// assessment reads every flow, so the snapshot must hold them all.
    func list(limit: Int?, newest: Bool = false) throws(ControlError) -> JSONShape.FlowList {
        var identifiers: EvidenceFindingIdentifiers?
        if let project {
            let assessment = SessionAssessment(
                catalogue: try CatalogueCommands.catalogue(for: project), flows: flows, project: project,
                session: session, markers: markers)
            identifiers = EvidenceFindingIdentifiers(assessment.findings.findings)
        }
        let shown = newest ? flows.suffix(limit ?? flows.count) : flows.prefix(limit ?? flows.count)
        return JSONShape.FlowList(
            session: JSONShape.Session(session, projectName: projectName, flowCount: flowCount),
            total: flowCount, limit: limit, truncated: shown.count < flowCount,
            flows: shown.map { JSONShape.Flow($0, findingIDs: identifiers?.ids(ofFlow: $0.id), relay: relayFacts[$0.id]) })
    }
}
