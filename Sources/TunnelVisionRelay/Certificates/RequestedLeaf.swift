import Foundation
import TunnelVisionModel

/// What the recording open for a phone asks the relay to present. The daemon reads it from the
/// database when a connection arrives (the database is the message, as for tagging).
public struct RequestedLeaf: Sendable, Hashable {
    public let mode: InspectionMode
    /// The recording: a validation recording's untrusted issuer is its own and no other's.
    public let sessionID: Int64?
    /// When the recording began: an expired leaf's validity ends before it.
    public let startedAt: Date?
    /// The recording keeps the paths of the requests read inside its connections.
    public let keepsRequestPaths: Bool

    public init(mode: InspectionMode, sessionID: Int64?, startedAt: Date?, keepsRequestPaths: Bool = false) {
        self.mode = mode
        self.sessionID = sessionID
        self.startedAt = startedAt
        self.keepsRequestPaths = keepsRequestPaths
    }

    /// No recording asks for anything else: leaves of the installed CA for the announced name.
    public static let installedAuthority = RequestedLeaf(mode: .pinning, sessionID: nil, startedAt: nil)
}

/// The certificate the phone was shown on one connection, reported with it.
public struct ShownLeaf: Sendable, Hashable {
    /// The defect it carried; nil for a leaf of the installed CA for the announced name.
    public let defect: CertificateDefect?
    /// Its only subject alternative name (and common name).
    public let name: String
    /// SHA-256 of the issuing CA's DER, lower-case hex.
    public let issuerFingerprint: String
    /// Seconds since the epoch.
    public let notBefore: Int
    public let notAfter: Int
    /// Shown in place of what the recording asked, because the server's own certificate did not
    /// verify: `defect` is then untrustedIssuer, from an issuer of the relay's run alone.
    public let mirrorsUpstream: Bool

    init(defect: CertificateDefect?, name: String, issuerFingerprint: String, notBefore: Int, notAfter: Int, mirrorsUpstream: Bool = false) {
        self.defect = defect
        self.name = name
        self.issuerFingerprint = issuerFingerprint
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.mirrorsUpstream = mirrorsUpstream
    }
}

extension ShownLeafKind {
    /// What the phone is shown with this leaf, given whether the server's own certificate verified.
    init(_ leaf: ShownLeaf, upstreamVerified: Bool) {
        if leaf.mirrorsUpstream { self = .mirroredUntrustedIssuer; return }
        if !upstreamVerified { self = .unverifiedUpstreamNotMirrored; return }
        switch leaf.defect {
        case nil: self = .installedAuthority
        case .untrustedIssuer: self = .untrustedIssuer
        case .wrongName: self = .wrongName
        case .expired: self = .expired
        }
    }
}

extension RelayObserver {
    /// Without a database to read, every connection is shown the installed CA's leaf.
    public func presentation(for leg: RelayPhoneLeg) -> RequestedLeaf? { .installedAuthority }
    public func relayDidPresent(_ leaf: ShownLeaf, on leg: RelayPhoneLeg) {}
}
