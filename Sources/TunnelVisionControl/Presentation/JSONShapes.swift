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

        init(_ project: AuditProject, sessionCount: Int? = nil) {
            id = project.id
            name = project.name
            bundleIdentifier = project.bundleIdentifier
            catalogue = project.catalogueVersion
            allowlist = project.allowlist.map(AllowlistEntry.init)
            createdAt = Formatting.iso8601(project.createdAt)
            self.sessionCount = sessionCount
        }
    }

    public struct Release: Encodable, Sendable, Hashable {
        public let version: String
        public let build: String
    }

    public struct Session: Encodable, Sendable, Hashable {
        public let id: Int64
        public let projectID: Int64
        public let projectName: String
        /// "baseline" or "audit".
        public let kind: String
        public let release: Release?
        public let deviceModel: String
        public let osVersion: String
        public let toolVersion: String
        public let inspectionEnabled: Bool
        public let caTrusted: Bool
        public let supportsPinningEvidence: Bool
        public let startedAt: String
        public let endedAt: String?
        public let isOpen: Bool
        public let notes: String
        public let flowCount: Int?
        public let markers: [Marker]?

        init(_ session: AuditSession, projectName: String, flowCount: Int? = nil, markers: [SessionMarker]? = nil) {
            id = session.id
            projectID = session.projectID
            self.projectName = projectName
            kind = AuditSerialization.code(of: session.kind).name
            release = session.kind.release.map { Release(version: $0.version, build: $0.build) }
            deviceModel = session.environment.deviceModel
            osVersion = session.environment.osVersion
            toolVersion = session.environment.toolVersion
            inspectionEnabled = session.inspection.inspectionEnabled
            caTrusted = session.inspection.caTrusted
            supportsPinningEvidence = session.inspection.supportsPinningEvidence
            startedAt = Formatting.iso8601(session.startedAt)
            endedAt = session.endedAt.map(Formatting.iso8601)
            isOpen = session.isOpen
            notes = session.notes
            self.flowCount = flowCount
            self.markers = markers?.map(Marker.init)
        }
    }

    public struct Marker: Encodable, Sendable, Hashable {
        public let id: Int64
        public let sessionID: Int64
        public let at: String
        /// consentGiven, loggedIn, loggedOut, custom.
        public let kind: String
        public let label: String?

        init(_ marker: SessionMarker) {
            id = marker.id
            sessionID = marker.sessionID
            at = Formatting.iso8601(marker.date)
            let (code, label) = AuditSerialization.code(of: marker.kind)
            kind = code.name
            self.label = label
        }
    }

    /// What `tvctl mark --json` says: placed, with where, or not.
    public struct MarkOutcome: Encodable, Sendable, Hashable {
        public let placed: Bool
        public let marker: Marker?
        public let session: Session?
    }

    /// A flow is written as flows.json writes it, so a script reads tvctl and a bundle alike.
    public typealias Flow = EvidenceFlow

    /// The flows asked for. `total` counts the session's flows; `truncated` says a limit left some out.
    public struct FlowList: Encodable, Sendable, Hashable {
        public let session: Session
        public let total: Int
        public let limit: Int?
        public let truncated: Bool
        public let flows: [Flow]
    }

    static func encoded<Value: Encodable>(_ value: Value) -> String {
        encoded(value, formatting: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    /// One object on one line: what a stream of JSON (`flows --follow --json`) is made of.
    static func line<Value: Encodable>(_ value: Value) -> String {
        encoded(value, formatting: [.sortedKeys, .withoutEscapingSlashes])
    }

    private static func encoded<Value: Encodable>(_ value: Value, formatting: JSONEncoder.OutputFormatting) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var single = encoder.singleValueContainer()
            try single.encode(EvidenceJSON.instant(date))
        }
        // Every shape here is built of strings, numbers and arrays: encoding cannot fail.
        guard let data = try? encoder.encode(value) else { return "{}\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
