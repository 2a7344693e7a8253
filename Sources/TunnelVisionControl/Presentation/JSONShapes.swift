import Foundation
import TunnelVisionEvidence
import TunnelVisionModel

/// The `--json` shapes: one per thing tvctl shows, stable across releases. A key that is
/// absent means "none" or "not read" (never null); instants are ISO 8601 in UTC.
public enum JSONShape {
    public struct AllowlistEntry: Encodable, Sendable, Hashable {
        public let pattern: String
        public let note: String?

        init(_ entry: TunnelVisionModel.AllowlistEntry) {
            pattern = entry.pattern.text
            note = entry.note
        }
    }

    public struct Project: Encodable, Sendable, Hashable {
        public let id: Int64
        public let name: String
        public let bundleIdentifier: String?
        public let catalogue: String?
        public let allowlist: [AllowlistEntry]
        public let createdAt: String
        /// Present where a command counted them (list, show).
        public let sessionCount: Int?

        package init(_ project: AuditProject, sessionCount: Int? = nil) {
            id = project.id
            name = project.name
            bundleIdentifier = project.bundleIdentifier
            catalogue = project.catalogueVersion
            allowlist = project.allowlist.map(AllowlistEntry.init)
            createdAt = Formatting.iso8601(project.createdAt)
            self.sessionCount = sessionCount
        }
    }

    /// A session as session.json writes it, with what a command read beside it: its project,
    /// whether it records, how many flows it holds.
    public struct Session: Encodable, Sendable, Hashable {
        public let session: EvidenceSessionDocument.Session
        public let projectID: Int64
        public let projectName: String
        public let isOpen: Bool
        public let flowCount: Int?

        package init(_ session: Recording, projectName: String, flowCount: Int? = nil, markers: [SessionMarker]? = nil) {
            self.session = EvidenceSessionDocument.Session(session, markers: markers)
            projectID = session.projectID
            self.projectName = projectName
            isOpen = session.isOpen
            self.flowCount = flowCount
        }

        private enum CodingKeys: String, CodingKey { case projectID, projectName, isOpen, flowCount }

        /// One object: the document's keys and these beside them.
        public func encode(to encoder: any Encoder) throws {
            try session.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(projectID, forKey: .projectID)
            try container.encode(projectName, forKey: .projectName)
            try container.encode(isOpen, forKey: .isOpen)
            try container.encodeIfPresent(flowCount, forKey: .flowCount)
        }
    }

    public typealias Marker = EvidenceSessionDocument.Marker

    /// What `tvctl mark --json` says: placed, with where, or not.
    public struct MarkOutcome: Encodable, Sendable, Hashable {
        public let placed: Bool
        public let marker: Marker?
        public let session: Session?
    }

    /// A flow is written as flows.json writes it, so a script reads tvctl and a bundle alike.
    public typealias Flow = EvidenceFlow

    /// The flows asked for. `total` counts the session's flows; `truncated` says a limit left some out.
    public struct FlowList: EvidenceJSONWritable, Sendable, Hashable {
        public let session: Session
        public let total: Int
        public let limit: Int?
        public let truncated: Bool
        public let flows: [Flow]

        public func write(to json: inout EvidenceJSONWriter) throws {
            try json.object { json in
                try json.field("flows", flows)
                try json.field("limit", limit)
                try json.field("session", encodable: session)
                try json.field("total", total)
                try json.field("truncated", truncated)
            }
        }
    }

    /// The bundle's encoding, pretty-printed: a script reads tvctl and a bundle alike.
    static func encoded(_ value: some Encodable) -> String {
        // Every shape here is built of strings, numbers and arrays: encoding cannot fail.
        text((try? EvidenceJSON.encode(value)) ?? Data("{}\n".utf8))
    }

    static func encoded(_ value: some EvidenceJSONWritable) -> String {
        text((try? EvidenceJSON.encode(value)) ?? Data("{}\n".utf8))
    }

    /// One object on one line: what a stream of JSON (`flows --follow --json`) is made of.
    static func line(_ value: some EvidenceJSONWritable) -> String {
        text((try? EvidenceJSON.encode(value, layout: .line)) ?? Data("{}\n".utf8))
    }

    private static func text(_ data: Data) -> String {
        String(decoding: data, as: UTF8.self)
    }
}
