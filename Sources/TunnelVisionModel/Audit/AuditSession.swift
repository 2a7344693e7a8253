import Foundation

public struct AppRelease: Sendable, Hashable {
    public let version: String
    public let build: String

    public init(version: String, build: String) {
        self.version = version
        self.build = build
    }
}

public enum AuditSessionKind: Sendable, Hashable {
    /// Recorded without the audited app: it has no release, so it never enters a diff.
    case baseline
    case audit(AppRelease)

    public var release: AppRelease? {
        switch self {
        case .baseline: nil
        case .audit(let release): release
        }
    }
}

public struct AuditEnvironment: Sendable, Hashable {
    public let deviceModel: String
    public let osVersion: String
    public let toolVersion: String

    public init(deviceModel: String, osVersion: String, toolVersion: String) {
        self.deviceModel = deviceModel
        self.osVersion = osVersion
        self.toolVersion = toolVersion
    }
}

public struct InspectionConditions: Sendable, Hashable {
    public let inspectionEnabled: Bool
    public let caTrusted: Bool

    public init(inspectionEnabled: Bool, caTrusted: Bool) {
        self.inspectionEnabled = inspectionEnabled
        self.caTrusted = caTrusted
    }

    /// Pinning can only be read when the relay inspected and the phone trusted its CA.
    public var supportsPinningEvidence: Bool { inspectionEnabled && caTrusted }
}

public struct AuditSession: Sendable, Hashable, Identifiable {
    public let id: Int64
    public let projectID: Int64
    public let kind: AuditSessionKind
    public let environment: AuditEnvironment
    public let inspection: InspectionConditions
    public let startedAt: Date
    /// Nil while open.
    public let endedAt: Date?
    public let notes: String
    /// The phone recorded, as it was at the start; nil for a recording of the whole tap (a
    /// gateway with no phones, or a history from before phones).
    public let phone: Phone?

    public init(
        id: Int64, projectID: Int64, kind: AuditSessionKind, environment: AuditEnvironment,
        inspection: InspectionConditions, startedAt: Date, endedAt: Date?, notes: String, phone: Phone? = nil
    ) {
        self.phone = phone
        self.id = id
        self.projectID = projectID
        self.kind = kind
        self.environment = environment
        self.inspection = inspection
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.notes = notes
    }

    public var isOpen: Bool { endedAt == nil }
}

/// Everything of a session but what the store assigns: the row id and the instants.
public struct AuditSessionDraft: Sendable, Hashable {
    public var projectID: Int64
    public var kind: AuditSessionKind
    public var environment: AuditEnvironment
    public var inspection: InspectionConditions
    public var notes: String
    /// Whose traffic is recorded; nil records the whole tap, and only while no phone is recorded.
    public var phone: Phone?

    public init(
        projectID: Int64, kind: AuditSessionKind, environment: AuditEnvironment,
        inspection: InspectionConditions, notes: String = "", phone: Phone? = nil
    ) {
        self.phone = phone
        self.projectID = projectID
        self.kind = kind
        self.environment = environment
        self.inspection = inspection
        self.notes = notes
    }
}

public enum SessionMarkerKind: Sendable, Hashable {
    case consentGiven, loggedIn, loggedOut, custom(String)
}

public struct SessionMarker: Sendable, Hashable, Identifiable {
    public let id: Int64
    public let sessionID: Int64
    public let date: Date
    public let kind: SessionMarkerKind

    public init(id: Int64, sessionID: Int64, date: Date, kind: SessionMarkerKind) {
        self.id = id
        self.sessionID = sessionID
        self.date = date
        self.kind = kind
    }
}

/// The open session with its project's name: what a control needs to say where it would mark.
public struct AuditRecording: Sendable, Hashable {
    public let session: AuditSession
    public let projectName: String

    public init(session: AuditSession, projectName: String) {
        self.session = session
        self.projectName = projectName
    }
}

public enum OpenSessionMarkerOutcome: Sendable, Hashable {
    case placed(SessionMarker, in: AuditRecording)
    /// Not an error: nothing was placed because nothing is being recorded.
    case noOpenSession
    /// Nothing was placed: several phones are being recorded and none was named.
    case severalOpen([AuditRecording])
}
