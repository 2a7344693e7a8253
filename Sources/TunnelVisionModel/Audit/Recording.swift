import Foundation

public struct AppRelease: Sendable, Hashable {
    public let version: String
    public let build: String

    public init(version: String, build: String) {
        self.version = version
        self.build = build
    }
}

public enum RecordingKind: Sendable, Hashable {
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
    /// What the relay presented to the phone during the recording. Anything but
    /// `off` only when the daemon's relay was running with a CA loaded when the session began:
    /// the live state, not the configuration.
    public let mode: InspectionMode
    /// The technician's declaration that the phone trusts the CA named by `caFingerprint`.
    public let caTrusted: Bool
    /// Lower-case hex SHA-256 of the DER of the CA the relay ran with; nil with inspection off.
    public let caFingerprint: String?
    /// The daemon dropped the phone's UDP to 443 (so apps fall back to TCP): it alters the app.
    public let quicDropped: Bool
    /// The recording was started with `--keep-keys`: the TLS secrets of the connections the relay
    /// terminated are stored for it (and only then), for a bundle exported `--with-keys`. They
    /// let anyone who reads the history decrypt those connections, so they are never kept unasked.
    public let keepsKeys: Bool
    /// The recording was started to keep the paths of the requests read inside its inspected
    /// connections (they can carry personal data, so they are never kept unasked).
    public let keepsRequestPaths: Bool

    /// Whether a server whose certificate did not verify was shown to the phone as an untrusted
    /// issuer's leaf (true) or with the recording's leaf all the same (false); nil with
    /// inspection off, or when the daemon did not say (sessions recorded before it could).
    public let upstreamMirror: Bool?
    /// Where the technician declared the CA installed; nil when the CA is not declared trusted, or
    /// for a recording declared trusted before the store was asked (its refusals name no store).
    public let caStore: CATrustStore?

    public init(
        mode: InspectionMode, caTrusted: Bool, caFingerprint: String? = nil, quicDropped: Bool = false, keepsKeys: Bool = false,
        upstreamMirror: Bool? = nil, caStore: CATrustStore? = nil, keepsRequestPaths: Bool = false
    ) {
        self.keepsRequestPaths = keepsRequestPaths
        self.upstreamMirror = upstreamMirror
        self.caStore = caTrusted ? caStore : nil
        self.mode = mode
        self.caTrusted = caTrusted
        self.caFingerprint = caFingerprint
        self.quicDropped = quicDropped
        self.keepsKeys = keepsKeys
    }

    /// A recording that inspects presents the installed CA's leaves unless told otherwise.
    public init(inspectionEnabled: Bool, caTrusted: Bool, caFingerprint: String? = nil, quicDropped: Bool = false, keepsKeys: Bool = false) {
        self.init(
            mode: inspectionEnabled ? .pinning : .off, caTrusted: caTrusted, caFingerprint: caFingerprint, quicDropped: quicDropped,
            keepsKeys: keepsKeys)
    }

    /// The daemon's relay was running with a CA loaded when the session began.
    public var inspectionEnabled: Bool { mode.inspects }

    /// Pinning can only be read when the relay presented the installed CA's own leaves and the
    /// phone trusted that CA: a leaf made to be refused says nothing of pinning.
    public var supportsPinningEvidence: Bool { mode == .pinning && caTrusted }
}

public struct Recording: Sendable, Hashable, Identifiable {
    public let id: Int64
    public let projectID: Int64
    public let kind: RecordingKind
    public let environment: AuditEnvironment
    public let inspection: InspectionConditions
    /// The phone's resolvers on the gateway, as the daemon's settings named them when the session
    /// started: lab infrastructure, whose DNS is judged by the connections that followed it.
    public let gatewayResolvers: [IPAddress]
    public let startedAt: Instant
    /// Nil while open.
    public let endedAt: Instant?
    public let notes: String
    /// SHA-256 of the CA the relay made for this recording alone (untrusted-issuer), once it made
    /// one; nil in every other mode.
    public let validationIssuerFingerprint: String?
    /// The phone recorded, as it was at the start; nil for a recording of the whole tap (a
    /// gateway with no phones, or a history from before phones).
    public let phone: Phone?

    public init(
        id: Int64, projectID: Int64, kind: RecordingKind, environment: AuditEnvironment,
        inspection: InspectionConditions, gatewayResolvers: [IPAddress] = [], startedAt: Instant, endedAt: Instant?, notes: String,
        validationIssuerFingerprint: String? = nil, phone: Phone? = nil
    ) {
        self.phone = phone
        self.id = id
        self.projectID = projectID
        self.kind = kind
        self.environment = environment
        self.inspection = inspection
        self.gatewayResolvers = gatewayResolvers
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.notes = notes
        self.validationIssuerFingerprint = validationIssuerFingerprint
    }

    public var isOpen: Bool { endedAt == nil }
}

/// Everything of a session but what the store assigns: the row id and the instants.
public struct RecordingDraft: Sendable, Hashable {
    public var projectID: Int64
    public var kind: RecordingKind
    public var environment: AuditEnvironment
    public var inspection: InspectionConditions
    public var gatewayResolvers: [IPAddress]
    public var notes: String
    /// Whose traffic is recorded; nil records the whole tap, and only while no phone is recorded.
    public var phone: Phone?

    public init(
        projectID: Int64, kind: RecordingKind, environment: AuditEnvironment,
        inspection: InspectionConditions, gatewayResolvers: [IPAddress] = [], notes: String = "", phone: Phone? = nil
    ) {
        self.phone = phone
        self.projectID = projectID
        self.kind = kind
        self.environment = environment
        self.inspection = inspection
        self.gatewayResolvers = gatewayResolvers
        self.notes = notes
    }
}

public enum SessionMarkerKind: Sendable, Hashable {
    case consentGiven, loggedIn, loggedOut, custom(String)
}

public struct SessionMarker: Sendable, Hashable, Identifiable {
    public let id: Int64
    public let sessionID: Int64
    public let date: Instant
    public let kind: SessionMarkerKind

    public init(id: Int64, sessionID: Int64, date: Instant, kind: SessionMarkerKind) {
        self.id = id
        self.sessionID = sessionID
        self.date = date
        self.kind = kind
    }
}

/// The open session with its project's name: what a control needs to say where it would mark.
public struct RecordingWithProject: Sendable, Hashable {
    public let session: Recording
    public let projectName: String

    public init(session: Recording, projectName: String) {
        self.session = session
        self.projectName = projectName
    }
}

public enum OpenSessionMarkerOutcome: Sendable, Hashable {
    case placed(SessionMarker, in: RecordingWithProject)
    /// Not an error: nothing was placed because nothing is being recorded.
    case noOpenSession
    /// Nothing was placed: several phones are being recorded and none was named.
    case severalOpen([RecordingWithProject])
}
