import Foundation
import TunnelVisionModel

/// session.json: the project with its allowlist, the session with its release, device,
/// inspection conditions and markers, and the two notes a reader must be given.
public struct EvidenceSessionDocument: Encodable, Sendable, Hashable {
    public struct Project: Encodable, Sendable, Hashable {
        public let id: Int64
        public let name: String
        public let bundleIdentifier: String?
        /// The catalogue the session was assessed against.
        public let catalogue: String
        public let createdAt: Date
        public let allowlist: [AllowlistItem]
    }

    public struct AllowlistItem: Encodable, Sendable, Hashable {
        public let pattern: String
        public let note: String?
    }

    public struct Release: Encodable, Sendable, Hashable {
        public let version: String
        public let build: String
    }

    public struct Device: Encodable, Sendable, Hashable {
        public let model: String
        public let osVersion: String
    }

    /// The phone recorded, as the gateway knew it when the recording started.
    public struct RecordedPhone: Encodable, Sendable, Hashable {
        public let name: String
        public let addresses: [String]
        public let publicKey: String
        /// SHA-256 of the WireGuard public key's 32 bytes, lower-case hex.
        public let keyFingerprint: String

        public init(_ phone: Phone) {
            name = phone.name
            addresses = phone.addresses.map(\.description)
            publicKey = phone.publicKey
            keyFingerprint = phone.keyFingerprint
        }
    }

    public struct Inspection: Encodable, Sendable, Hashable {
        /// off / pinning / untrusted-issuer / wrong-name / expired: what the relay presented.
        public let mode: String
        /// The relay ran with a CA loaded when the session began.
        public let inspectionEnabled: Bool
        public let caTrusted: Bool
        /// Where the CA was declared installed: user, user-full-trust (an iOS profile with full
        /// trust on) or system; absent when not declared trusted or declared before it was asked.
        public let caStore: String?
        /// The SHA-256 of the CA's DER the relay signed with; absent with inspection off.
        public let caSHA256: String?
        /// UDP to port 443 from the phone was rejected, so that apps fell back to TCP.
        public let quicDropped: Bool
        /// A server whose certificate did not verify was shown to the phone as an untrusted
        /// issuer's leaf (true), or with the recording's leaf (false); absent when not recorded.
        public let upstreamMirror: Bool?
        public let supportsPinningEvidence: Bool
        /// The SHA-256 of the CA the relay made for this recording alone and installed nowhere
        /// (untrusted-issuer); absent in every other mode, or when no connection was shown its leaf.
        public let validationIssuerSHA256: String?
        /// The recording was started with --keep-keys: the TLS secrets of the connections the
        /// relay terminated were kept in the history (only then can a bundle carry them).
        public let keepKeys: Bool
        /// The recording was started with --keep-request-paths: the paths of the requests the
        /// relay read were kept; absent with inspection off (no request was read).
        public let keepRequestPaths: Bool?

        public var conditions: InspectionConditions {
            InspectionConditions(
                mode: AuditSerialization.inspectionMode(name: mode) ?? .off, caTrusted: caTrusted, caFingerprint: caSHA256,
                quicDropped: quicDropped, keepsKeys: keepKeys, upstreamMirror: upstreamMirror,
                caStore: caStore.flatMap(CATrustStore.init(rawValue:)), keepsRequestPaths: keepRequestPaths == true)
        }
    }

    public struct Marker: Encodable, Sendable, Hashable {
        public let id: Int64
        /// consentGiven / loggedIn / loggedOut / custom.
        public let kind: String
        public let label: String?
        public let date: Instant

        public init(_ marker: SessionMarker) {
            id = marker.id
            let (code, label) = AuditSerialization.code(of: marker.kind)
            kind = code.name
            self.label = label
            date = marker.date
        }
    }

    /// A session as every JSON document writes it (tvctl's too).
    public struct Session: Encodable, Sendable, Hashable {
        public let id: Int64
        /// baseline / audit.
        public let kind: String
        public let release: Release?
        public let startedAt: Instant
        /// Absent while the session records; a bundle's session has always ended.
        public let endedAt: Instant?
        public let notes: String
        public let device: Device
        /// Absent for a recording of the whole tap (no phone named).
        public let phone: RecordedPhone?
        /// The tool that recorded the session; `exportedWith` is the one that exported it.
        public let toolVersion: String
        public let inspection: Inspection
        /// The phone's resolvers on the gateway when the session started (see `labInfrastructure`).
        public let gatewayResolvers: [String]
        /// Absent where they were not read (a list of sessions).
        public let markers: [Marker]?

        public init(_ session: Recording, markers: [SessionMarker]?, endedAt: Instant? = nil) {
            id = session.id
            kind = AuditSerialization.code(of: session.kind).name
            release = session.kind.release.map { Release(version: $0.version, build: $0.build) }
            startedAt = session.startedAt
            self.endedAt = endedAt ?? session.endedAt
            notes = session.notes
            device = Device(model: session.environment.deviceModel, osVersion: session.environment.osVersion)
            phone = session.phone.map(RecordedPhone.init)
            toolVersion = session.environment.toolVersion
            inspection = Inspection(
                mode: AuditSerialization.name(of: session.inspection.mode),
                inspectionEnabled: session.inspection.inspectionEnabled, caTrusted: session.inspection.caTrusted,
                caStore: session.inspection.caStore?.rawValue,
                caSHA256: session.inspection.caFingerprint, quicDropped: session.inspection.quicDropped,
                upstreamMirror: session.inspection.upstreamMirror,
                supportsPinningEvidence: session.inspection.supportsPinningEvidence,
                validationIssuerSHA256: session.validationIssuerFingerprint, keepKeys: session.inspection.keepsKeys,
                keepRequestPaths: session.inspection.inspectionEnabled ? session.inspection.keepsRequestPaths : nil)
            gatewayResolvers = session.gatewayResolvers.map(\.description)
            self.markers = markers?.map(Marker.init)
        }
    }

    public let format = "tunnelvision.evidence.session"
    public let formatVersion = 1
    public let exportedAt: Date
    public let exportedWith: String
    public let project: Project
    public let session: Session
    public let attribution: String
    /// Whether capture.pcapng carries the phone↔relay TLS secrets, and of how many flows.
    public let keyLog: EvidenceKeyLog
    public let notIncluded: String
    public let labInfrastructure: String
    /// Which gateway key signed manifest.json (manifest.json.minisig), or why none did.
    public let signature: EvidenceSignatureNote
    /// Which TSA was asked for a token over manifest.json (manifest.json.tsr), or why none was.
    public let timestamp: EvidenceTimestampNote

    init(
        project: AuditProject, session: Recording, endedAt: Instant, markers: [SessionMarker],
        catalogue: String, exportedWith: String, exportedAt: Date, keyLog: EvidenceKeyLog, signature: EvidenceSignatureNote,
        timestamp: EvidenceTimestampNote
    ) {
        self.exportedAt = exportedAt
        self.exportedWith = exportedWith
        self.project = Project(
            id: project.id, name: project.name, bundleIdentifier: project.bundleIdentifier, catalogue: catalogue,
            createdAt: project.createdAt,
            allowlist: project.allowlist.map { AllowlistItem(pattern: $0.pattern.text, note: $0.note) })
        // The bundle is built of an ended session only: `endedAt` is its end, never absent.
        self.session = Session(session, markers: markers, endedAt: endedAt)
        attribution = session.phone.map {
            EvidenceWording.Note.attribution(phone: $0.name, addresses: $0.addresses.map(\.description))
        } ?? EvidenceWording.Note.attribution
        self.keyLog = keyLog
        notIncluded = EvidenceWording.Note.notIncluded(keyLog: keyLog)
        labInfrastructure = EvidenceWording.Note.labInfrastructure
        self.signature = signature
        self.timestamp = timestamp
    }

    private enum CodingKeys: String, CodingKey {
        case format, formatVersion, exportedAt, exportedWith, project, session, attribution, keyLog, notIncluded, labInfrastructure
        case signature, timestamp
    }
}

/// The key log's place in a bundle: `tvctl export --with-keys` includes it, the default does not.
public struct EvidenceKeyLog: Encodable, Sendable, Hashable {
    public let included: Bool
    /// Inspected flows whose secrets the history holds.
    public let flows: Int

    public init(included: Bool, flows: Int) {
        self.included = included
        self.flows = flows
    }
}

/// The signature's place in a bundle: the key id of the gateway key that signed manifest.json
/// in minisign's format, or none (the gateway had no signing key), said in a sentence.
public struct EvidenceSignatureNote: Encodable, Sendable, Hashable {
    /// minisign's key id, 16 upper-case hex digits; nil: the bundle is not signed.
    public let keyID: String?
    /// The member holding the signature; nil when there is none.
    public let file: String?
    public let note: String

    public init(keyID: String?) {
        self.keyID = keyID
        file = keyID == nil ? nil : EvidenceFileName.signature
        note = EvidenceWording.Note.signature(keyID: keyID)
    }

    public static let unsigned = EvidenceSignatureNote(keyID: nil)
}

/// The timestamp's place in a bundle. The token is over manifest.json, which lists this file, so
/// this file can name the TSA asked but not the instant it answered: that is in the token.
public struct EvidenceTimestampNote: Encodable, Sendable, Hashable {
    /// The TSA's URL; nil: the configuration names none.
    public let authority: String?
    /// The member holding the TSA's reply; nil when there is none.
    public let file: String?
    public let note: String

    public init(authority: String?, skipped: Bool) {
        self.authority = authority
        file = authority != nil && !skipped ? EvidenceFileName.timestamp : nil
        note = EvidenceWording.Note.timestamp(authority: authority, skipped: skipped)
    }

    public static let none = EvidenceTimestampNote(authority: nil, skipped: false)
}
