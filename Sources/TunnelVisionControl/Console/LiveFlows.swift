import Foundation
import TunnelVisionModel
import TunnelVisionStore

/// The live flow list of a recording for another front end than the terminal (the web console):
/// the same columns and cells as `tvctl flows`, read the way `tvctl flows --follow` reads them —
/// one snapshot, then only the flows changed after the history's change marker.
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
    }

    /// What changed after a marker: the rows (new or updated), the headline, and the next marker.
    public struct Change: Sendable {
        public let isOpen: Bool
        public let headline: String
        public let rows: [Row]
        public let marker: FlowChangeMarker
    }

    public static var columnTitles: [String] { FlowListing.columns.map(\.title) }
    /// The columns that read as numbers (aligned right).
    public static var numericColumns: Set<Int> {
        Set(FlowListing.columns.indices.filter { FlowListing.columns[$0].alignment == .right })
    }

    /// The session's newest `limit` flows, newest first.
    public static func open(sessionID: Int64, limit: Int, library: ControlLibrary, zone: TimeZone = .current) throws(ControlError) -> Opening {
        let snapshot = try FlowSnapshot.read(session: sessionID, limit: limit, newest: true, library: library)
        let rows = snapshot.flows.reversed().map { row($0, zone: zone) }
        return Opening(
            sessionID: snapshot.session.id, isOpen: snapshot.session.isOpen, headline: snapshot.headline(zone: zone),
            rows: rows, flowCount: snapshot.flowCount, marker: snapshot.marker,
            truncation: snapshot.flowCount > rows.count ? Wording.newestFlowsTruncated(shown: rows.count, of: snapshot.flowCount) : nil)
    }

    /// The flows changed after `marker`, one read transaction, oldest change first.
    public static func changes(
        sessionID: Int64, after marker: FlowChangeMarker, library: ControlLibrary, zone: TimeZone = .current
    ) throws(ControlError) -> Change {
        let read = try library.read { store throws -> (AuditSession?, [StoredFlow], FlowChangeMarker, String?) in
            let (flows, next) = try store.flowsChanged(inAuditSession: sessionID, after: marker)
            guard let session = try store.auditSession(id: sessionID) else { return (nil, [], next, nil) }
            // The headline is read again only when it changed: a new flow, or the end.
            guard !flows.isEmpty || !session.isOpen else { return (session, flows, next, nil) }
            let project = try store.auditProject(id: session.projectID)?.name ?? ""
            let count = try store.flowCount(inAuditSession: sessionID)
            return (session, flows, next, Wording.flowsHeadline(session, project: project, flows: count, zone: zone))
        }
        let (found, flows, next, headline) = read
        guard let session = found else { throw .refusal(.sessionNotFound(sessionID)) }
        return Change(isOpen: session.isOpen, headline: headline ?? "", rows: flows.map { row($0, zone: zone) }, marker: next)
    }

    /// A recording's newest flows with the findings each is behind, as `tvctl flows --json`
    /// assigns them (assessed on every flow of the recording); the last cell holds their ids.
    public static func withFindings(sessionID: Int64, limit: Int, library: ControlLibrary, zone: TimeZone = .current) throws(ControlError) -> Opening {
        let snapshot = try FlowSnapshot.read(session: sessionID, limit: .max, library: library)
        let list = try snapshot.list(limit: nil)
        let findings = Dictionary(list.flows.map { ($0.id, $0.findingIDs ?? []) }, uniquingKeysWith: { first, _ in first })
        let rows = snapshot.flows.suffix(limit).reversed().map { flow in
            let cells = row(flow, zone: zone).cells
            let ids = findings[flow.id] ?? []
            return Row(id: flow.id, cells: cells + [ids.isEmpty ? AuditTables.none : ids.joined(separator: " ")])
        }
        return Opening(
            sessionID: sessionID, isOpen: snapshot.session.isOpen, headline: snapshot.headline(zone: zone), rows: rows,
            flowCount: snapshot.flowCount, marker: snapshot.marker,
            truncation: snapshot.flowCount > rows.count ? Wording.newestFlowsTruncated(shown: rows.count, of: snapshot.flowCount) : nil)
    }

    /// The title of the column `withFindings` adds.
    public static let findingsColumnTitle = "FINDINGS"

    static func row(_ flow: StoredFlow, zone: TimeZone) -> Row {
        Row(id: flow.id, cells: FlowListing.cells(of: flow, zone: zone).map(TerminalText.visible))
    }
}
