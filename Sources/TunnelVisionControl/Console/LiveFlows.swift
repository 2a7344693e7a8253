import Foundation
import TunnelVisionAudit
import TunnelVisionEvidence
import TunnelVisionModel
import TunnelVisionStore

/// The live flow list of a recording for another front end than the terminal (the web console):
/// the same columns and cells as `tvctl flows`, read the way `tvctl flows --follow` reads them —
/// one snapshot, then only the flows changed after the history's change marker. Each row adds
/// the phone the flow belongs to and the findings it is behind so far.
public enum LiveFlows {
    /// One flow as its row: the id (to replace an updated row) and the cells `tvctl flows` prints.
    public struct Row: Sendable, Hashable {
        public let id: Int64
        public let cells: [String]
    }

    /// A recording's session, headline and newest rows, and where the next read starts.
    public struct Opening: Sendable {
        public let sessionID: Int64
        public let isOpen: Bool
        public let headline: String
        public let rows: [Row]
        public let flowCount: Int
        public let marker: FlowChangeMarker
        /// What the page says when it shows fewer rows than the recording has.
        public let truncation: String?
        /// The session's markers the rows' findings were judged with.
        public let markers: [SessionMarker]
    }

    /// What changed after a marker: the rows (new or updated), the headline, and the next marker.
    public struct Change: Sendable {
        public let isOpen: Bool
        public let headline: String
        public let rows: [Row]
        public let marker: FlowChangeMarker
        /// The session's markers as read with the rows: a new consent marker changes the
        /// findings of rows already shown.
        public let markers: [SessionMarker]
    }

    /// Where the phone's cell goes among `tvctl flows`'s: after the time.
    static let phoneColumn = 2
    public static let phoneColumnTitle = "PHONE"
    /// The title of the last column: the findings a flow is behind.
    public static let findingsColumnTitle = "FINDINGS"

    public static var columnTitles: [String] {
        var titles = FlowListing.columns.map(\.title)
        titles.insert(phoneColumnTitle, at: phoneColumn)
        return titles + [findingsColumnTitle]
    }

    /// The columns that read as numbers (aligned right).
    public static var numericColumns: Set<Int> {
        Set(FlowListing.columns.indices.filter { FlowListing.columns[$0].alignment == .right }.map { $0 < phoneColumn ? $0 : $0 + 1 })
    }

    /// The session's newest `limit` flows, newest first.
    public static func open(sessionID: Int64, limit: Int, library: ControlLibrary, zone: TimeZone = .current) throws(ControlError) -> Opening {
        let snapshot = try FlowSnapshot.read(session: sessionID, limit: limit, newest: true, library: library)
        let judge = try RowJudge(session: snapshot.session, project: snapshot.project, markers: snapshot.markers, library: library)
        let rows = snapshot.flows.reversed().map { judge.row($0, zone: zone) }
        return Opening(
            sessionID: snapshot.session.id, isOpen: snapshot.session.isOpen, headline: snapshot.headline(zone: zone),
            rows: rows, flowCount: snapshot.flowCount, marker: snapshot.marker,
            truncation: snapshot.flowCount > rows.count ? Wording.newestFlowsTruncated(shown: rows.count, of: snapshot.flowCount) : nil,
            markers: snapshot.markers)
    }

    /// The flows changed after `marker`, one read transaction, oldest change first.
    public static func changes(
        sessionID: Int64, after marker: FlowChangeMarker, library: ControlLibrary, zone: TimeZone = .current
    ) throws(ControlError) -> Change {
        typealias Read = (session: Recording?, project: AuditProject?, markers: [SessionMarker], flows: [StoredFlow], next: FlowChangeMarker, headline: String?)
        let read = try library.read { store throws -> Read in
            let (flows, next) = try store.flowsChanged(inRecording: sessionID, after: marker)
            guard let session = try store.recording(id: sessionID) else { return (nil, nil, [], [], next, nil) }
            let markers = try store.markers(forSession: sessionID)
            // The headline is read again only when it changed: a new flow, or the end.
            guard !flows.isEmpty || !session.isOpen else { return (session, nil, markers, flows, next, nil) }
            let project = try store.auditProject(id: session.projectID)
            let count = try store.flowCount(inRecording: sessionID)
            return (session, project, markers, flows, next,
                    Wording.flowsHeadline(session, project: project?.name ?? "", flows: count, zone: zone))
        }
        guard let session = read.session else { throw .refusal(.audit(.sessionNotFound(sessionID))) }
        guard !read.flows.isEmpty else {
            return Change(isOpen: session.isOpen, headline: read.headline ?? "", rows: [], marker: read.next, markers: read.markers)
        }
        let judge = try RowJudge(session: session, project: read.project, markers: read.markers, library: library)
        return Change(
            isOpen: session.isOpen, headline: read.headline ?? "", rows: read.flows.map { judge.row($0, zone: zone) },
            marker: read.next, markers: read.markers)
    }

    /// A recording's newest flows with the findings each is behind, as `tvctl flows --json`
    /// assigns them (assessed on every flow of the recording); the last cell holds their ids.
    public static func withFindings(sessionID: Int64, limit: Int, library: ControlLibrary, zone: TimeZone = .current) throws(ControlError) -> Opening {
        let snapshot = try FlowSnapshot.read(session: sessionID, limit: .max, library: library)
        let list = try snapshot.list(limit: nil)
        let findings = Dictionary(list.flows.map { ($0.id, $0.findingIDs ?? []) }, uniquingKeysWith: { first, _ in first })
        let phones = try RowJudge.phones(for: snapshot.session, library: library)
        let rows = snapshot.flows.suffix(limit).reversed().map { flow in
            let ids = findings[flow.id] ?? []
            return Row(id: flow.id, cells: RowJudge.cells(
                of: flow, phone: RowJudge.phone(of: flow, session: snapshot.session, phones: phones),
                findings: ids.isEmpty ? AuditTables.none : ids.joined(separator: " "), zone: zone))
        }
        return Opening(
            sessionID: sessionID, isOpen: snapshot.session.isOpen, headline: snapshot.headline(zone: zone), rows: rows,
            flowCount: snapshot.flowCount, marker: snapshot.marker,
            truncation: snapshot.flowCount > rows.count ? Wording.newestFlowsTruncated(shown: rows.count, of: snapshot.flowCount) : nil,
            markers: snapshot.markers)
    }

}

/// What a row says beyond `tvctl flows`: whose phone, and what the flow proves so far, by the
/// audit's own rules and in the words of `tvctl findings --json` (a finding's statement).
struct RowJudge {
    let session: Recording
    let project: AuditProject?
    let markers: [SessionMarker]
    let policy: FindingsPolicy?
    let phones: [RegisteredPhone]
    let refusals: PinningRefusalContext

    init(session: Recording, project: AuditProject?, markers: [SessionMarker], library: ControlLibrary) throws(ControlError) {
        self.session = session
        // A refusal is judged beside every acceptance the recording holds so far, not only the
        // rows this push carries.
        let flows = session.inspection.inspectionEnabled
            ? try library.read { store in try store.flows(inRecording: session.id) } : []
        refusals = PinningRefusalContext(flows: flows, conditions: session.inspection)
        self.project = project
        self.markers = markers
        policy = try project.map { project throws(ControlError) in try CatalogueCommands.catalogue(for: project).policy }
        phones = try Self.phones(for: session, library: library)
    }

    /// A recording of the whole tap has flows of every phone: each is known by its address.
    static func phones(for session: Recording, library: ControlLibrary) throws(ControlError) -> [RegisteredPhone] {
        session.phone != nil ? [] : try library.read { store in try store.phones() }
    }

    static func phone(of flow: StoredFlow, session: Recording, phones: [RegisteredPhone]) -> String {
        if let name = session.phone?.name { return name }
        let ends = [flow.key.endpointA.address, flow.key.endpointB.address]
        return phones.first { registered in registered.phone.addresses.contains { ends.contains($0) } }?.phone.name ?? AuditTables.none
    }

    func row(_ flow: StoredFlow, zone: TimeZone) -> LiveFlows.Row {
        var statements: [String] = []
        if let project, let policy {
            statements = FindingsClassifier.findings(
                of: flow, project: project, session: session, markers: markers, policy: policy, refusals: refusals)
                .map { EvidenceWording.statement(of: $0, minimum: policy.minimumTLSVersion) }
        }
        return LiveFlows.Row(id: flow.id, cells: Self.cells(
            of: flow, phone: Self.phone(of: flow, session: session, phones: phones),
            findings: statements.isEmpty ? AuditTables.none : statements.joined(separator: " "), zone: zone))
    }

    static func cells(of flow: StoredFlow, phone: String, findings: String, zone: TimeZone) -> [String] {
        var cells = FlowListing.cells(of: flow, zone: zone)
        cells.insert(phone, at: LiveFlows.phoneColumn)
        return (cells + [findings]).map(TerminalText.visible)
    }
}
