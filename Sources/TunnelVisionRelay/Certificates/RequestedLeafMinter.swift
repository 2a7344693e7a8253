import COpenSSL
import Foundation
import TunnelVisionModel

/// The leaf a connection is shown, by what its recording asks for (`docs/ARCHITECTURE.md` § The relay):
/// - the installed CA's leaf for the announced name (the LeafMinter's, cached);
/// - untrusted-issuer: the same leaf signed by a CA made for this recording alone, written
///   beside the installed CA's files (so a restart of the daemon keeps the fingerprint the
///   session records) and installed nowhere;
/// - wrong-name: signed by the installed CA, for a random label under `.invalid` (RFC 6761:
///   a name that can never be the one announced);
/// - expired: signed by the installed CA, for the announced name, its validity over a day
///   before the recording began.
/// Defective leaves are not cached: each costs one P-256 signature.
final class RequestedLeafMinter {
    let installed: LeafMinter
    private let recordingAuthorityDirectory: String
    private var recordingAuthority: (sessionID: Int64, authority: CertificateAuthority)?
    /// The issuer of mirrored leaves: made at the first server whose certificate did not verify,
    /// kept in memory for the run, its key never written, so no phone can trust it.
    private var mirrorAuthority: CertificateAuthority?

    /// How long before the recording an expired leaf's validity ended, and how long it had lasted.
    static let expiredBefore = 86_400
    static let expiredLifetime = 30 * 86_400

    init(installed: LeafMinter, recordingAuthorityDirectory: String) {
        self.installed = installed
        self.recordingAuthorityDirectory = recordingAuthorityDirectory
    }

    func leaf(for name: String, presentation: RequestedLeaf, now: Int) throws(RelayError) -> (Leaf, ShownLeaf) {
        let key = installed.leafKey
        let authority: CertificateAuthority
        let leaf: Leaf
        let shownName: String
        let start: Int
        switch presentation.mode.defect {
        case nil:
            let cached = try installed.leaf(for: name, now: now)
            return (cached, ShownLeaf(
                defect: nil, name: name, issuerFingerprint: installed.authority.fingerprint,
                notBefore: cached.notAfter - LeafMinter.lifetime, notAfter: cached.notAfter))
        case .untrustedIssuer:
            authority = try self.authority(for: presentation.sessionID ?? 0, now: now)
            shownName = name
            start = now - LeafMinter.backdating
            leaf = try LeafMinter.sign(name, key: key, issuer: authority, from: start, to: start + LeafMinter.lifetime)
        case .wrongName:
            authority = installed.authority
            shownName = try Self.unannouncedName()
            start = now - LeafMinter.backdating
            leaf = try LeafMinter.sign(shownName, key: key, issuer: authority, from: start, to: start + LeafMinter.lifetime)
        case .expired:
            authority = installed.authority
            shownName = name
            let began = presentation.startedAt.map { Int($0.timeIntervalSince1970) } ?? now
            let end = min(began, now) - Self.expiredBefore
            start = end - Self.expiredLifetime
            leaf = try LeafMinter.sign(name, key: key, issuer: authority, from: start, to: end)
        }
        return (leaf, ShownLeaf(
            defect: presentation.mode.defect, name: shownName, issuerFingerprint: authority.fingerprint,
            notBefore: start, notAfter: leaf.notAfter))
    }

    /// In place of what the recording asks, when the server's own certificate did not verify: a
    /// leaf for the announced name from an issuer no phone trusts, so that the phone refuses it as
    /// it would have refused the server's (a phone that accepts any certificate accepts both).
    func mirrorLeaf(for name: String, now: Int) throws(RelayError) -> (Leaf, ShownLeaf) {
        let authority: CertificateAuthority
        if let held = mirrorAuthority {
            authority = held
        } else {
            authority = try CertificateAuthority.ephemeral(
                now: Date(timeIntervalSince1970: TimeInterval(now)), commonName: "TunnelVision mirror of unverified servers (installed nowhere)")
            mirrorAuthority = authority
        }
        let start = now - LeafMinter.backdating
        let leaf = try LeafMinter.sign(name, key: installed.leafKey, issuer: authority, from: start, to: start + LeafMinter.lifetime)
        return (leaf, ShownLeaf(
            defect: .untrustedIssuer, name: name, issuerFingerprint: authority.fingerprint,
            notBefore: start, notAfter: leaf.notAfter, mirrorsUpstream: true))
    }

    /// The recording's own CA: loaded when its files exist (a restart mid-recording), else made.
    func authority(for sessionID: Int64, now: Int) throws(RelayError) -> CertificateAuthority {
        if let held = recordingAuthority, held.sessionID == sessionID { return held.authority }
        let files = Self.recordingAuthorityFiles(sessionID: sessionID, in: recordingAuthorityDirectory)
        let authority = try CertificateAuthority.loadOrCreate(
            files, now: Date(timeIntervalSince1970: TimeInterval(now)),
            commonName: "TunnelVision untrusted issuer, recording \(sessionID)")
        recordingAuthority = (sessionID, authority)
        return authority
    }

    static func recordingAuthorityFiles(sessionID: Int64, in directory: String) -> CertificateAuthorityFiles {
        let base = (directory as NSString).appendingPathComponent("recording-\(sessionID)-untrusted-ca")
        return CertificateAuthorityFiles(keyPath: base + ".key", certificatePath: base + ".pem")
    }

    /// A random label under `.invalid`.
    static func unannouncedName() throws(RelayError) -> String {
        var bytes = [UInt8](repeating: 0, count: 8)
        guard RAND_bytes(&bytes, Int32(bytes.count)) == 1 else { throw OpenSSLSupport.failure("draw a name") }
        return "tv-" + bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() + ".invalid"
    }
}
