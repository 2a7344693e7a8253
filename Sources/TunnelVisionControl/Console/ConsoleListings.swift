import Foundation
import TunnelVisionModel
import TunnelVisionStore

/// The lists a front end links from: the same lines `tvctl project list` and `tvctl session
/// list` print, each with the id it names, so a page can make every line a link without a
/// second copy of the table.
public enum ConsoleListings {
    public struct Line: Sendable, Hashable {
        public let id: Int64
        public let text: String
        public let isOpen: Bool
    }

    public struct Listing: Sendable, Hashable {
        public let header: String
        public let lines: [Line]
        /// What tvctl says when there is nothing to list.
        public let empty: String
    }

    /// What a session's page needs to know beside what the commands print.
    public struct SessionFacts: Sendable, Hashable {
        public let id: Int64
        public let projectID: Int64
        public let isOpen: Bool
        public let phoneName: String?
        /// Whether the relay kept TLS secrets of this session's connections (`export --with-keys`).
        public let keysKept: Bool
        /// The project's other sessions, newest first, for the release diff.
        public let others: [Line]
    }

    public static func projects(library: ControlLibrary, zone: TimeZone = .current) throws(ControlError) -> Listing {
        let rows = try library.read { store in
            try store.auditProjects().map { (project: $0, sessions: try store.recordings(forProject: $0.id).count) }
        }
        let lines = AuditTables.projects(rows, zone: zone).lines()
        return Listing(
            header: lines.first ?? "",
            lines: zip(rows, lines.dropFirst()).map { Line(id: $0.project.id, text: $1, isOpen: false) },
            empty: Wording.noProjects)
    }

    public static func sessions(projectID: Int64? = nil, library: ControlLibrary, zone: TimeZone = .current) throws(ControlError) -> Listing {
        let rows = try library.read { store in
            let projects = try store.auditProjects().filter { projectID == nil || $0.id == projectID }
            var rows: [AuditTables.SessionRow] = []
            for project in projects {
                for session in try store.recordings(forProject: project.id) {
                    rows.append(.init(session: session, projectName: project.name, flowCount: try store.flowCount(inRecording: session.id)))
                }
            }
            return rows.sorted { ($0.session.startedAt, $0.session.id) > ($1.session.startedAt, $1.session.id) }
        }
        let lines = AuditTables.sessions(rows, zone: zone).lines()
        return Listing(
            header: lines.first ?? "",
            lines: zip(rows, lines.dropFirst()).map { Line(id: $0.session.id, text: $1, isOpen: $0.session.isOpen) },
            empty: Wording.noSessions)
    }

    /// Projects by id and name, for a form's choice.
    public static func projectNames(library: ControlLibrary) throws(ControlError) -> [(id: Int64, name: String)] {
        try library.read { store in try store.auditProjects().map { ($0.id, $0.name) } }
    }

    /// Phones by name, for a form's choice.
    public static func phoneNames(library: ControlLibrary) throws(ControlError) -> [String] {
        try library.read { store in try store.phones().map(\.phone.name) }
    }

    public static func session(_ id: Int64, library: ControlLibrary) throws(ControlError) -> SessionFacts {
        let (session, kept) = try library.read { store in
            let session = try SessionReference.session(id, in: store)
            let kept = try store.relayFacts(inRecording: id).values.contains { !$0.keyLog.isEmpty }
            return (session, kept)
        }
        let others = try sessions(projectID: session.projectID, library: library).lines.filter { $0.id != id }
        return SessionFacts(
            id: id, projectID: session.projectID, isOpen: session.isOpen, phoneName: session.phone?.name,
            keysKept: kept, others: others)
    }
}
