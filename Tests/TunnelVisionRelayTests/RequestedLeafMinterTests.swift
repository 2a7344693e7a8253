import COpenSSL
import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionRelay

/// The leaves of each inspection mode, judged by `openssl verify` (not our code) against the
/// installed CA, as a client that trusts it would judge them.
@Suite("The leaf each inspection mode presents")
struct RequestedLeafMinterTests {
    static let host = "api.acme.example"
    static let began = Date(timeIntervalSince1970: 1_790_000_000)

    final class Lab {
        let folder: URL
        let installed: CertificateAuthority
        let minter: RequestedLeafMinter

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("tv-presentation-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
            let files = CertificateAuthorityFiles(
                keyPath: folder.appendingPathComponent("ca.key").path, certificatePath: folder.appendingPathComponent("ca.pem").path)
            installed = try CertificateAuthority.create(files)
            minter = RequestedLeafMinter(
                installed: try LeafMinter(authority: installed, cacheEntries: 8), recordingAuthorityDirectory: folder.path)
        }

        deinit { try? FileManager.default.removeItem(at: folder) }

        func write(_ leaf: Leaf) throws -> String {
            let pem = try #require(OpenSSLSupport.pem { PEM_write_bio_X509($0, leaf.certificate) })
            let path = folder.appendingPathComponent("leaf-\(UUID().uuidString).pem").path
            try Data(pem).write(to: URL(fileURLWithPath: path))
            return path
        }

        /// What `openssl verify` prints and whether it accepted, trusting only `caFile`.
        func verify(_ leaf: Leaf, caFile: String? = nil, hostname: String? = RequestedLeafMinterTests.host) throws -> (ok: Bool, output: String) {
            var arguments = ["verify", "-CAfile", caFile ?? folder.appendingPathComponent("ca.pem").path]
            if let hostname { arguments += ["-verify_hostname", hostname] }
            arguments.append(try write(leaf))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["openssl"] + arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus == 0, output)
        }
    }

    static func presentation(_ mode: InspectionMode, session: Int64 = 41) -> RequestedLeaf {
        RequestedLeaf(mode: mode, sessionID: session, startedAt: began)
    }

    static var now: Int { Int(began.timeIntervalSince1970) + 600 }

    @Test("pinning: the installed CA's leaf for the announced name, which a client trusting that CA accepts")
    func pinningLeafVerifies() throws {
        let lab = try Lab()
        let (leaf, presented) = try lab.minter.leaf(for: Self.host, presentation: Self.presentation(.pinning), now: Int(Date().timeIntervalSince1970))
        #expect(presented.defect == nil && presented.name == Self.host && presented.issuerFingerprint == lab.installed.fingerprint)
        let verdict = try lab.verify(leaf)
        #expect(verdict.ok, "\(verdict.output)")
    }

    @Test("a mirror of a server that did not verify: the announced name, an issuer of the run alone, refused against the installed CA, nothing written")
    func mirrorLeafIsRefusedAndLeavesNoKey() throws {
        let lab = try Lab()
        let before = try FileManager.default.contentsOfDirectory(atPath: lab.folder.path).sorted()
        let wall = Int(Date().timeIntervalSince1970)
        let (leaf, presented) = try lab.minter.mirrorLeaf(for: Self.host, now: wall)
        #expect(presented.mirrorsUpstream && presented.defect == .untrustedIssuer && presented.name == Self.host)
        #expect(presented.issuerFingerprint != lab.installed.fingerprint)
        #expect(ShownLeafKind(presented, upstreamVerified: false) == .mirroredUntrustedIssuer)
        let refused = try lab.verify(leaf)
        #expect(!refused.ok && refused.output.contains("unable to get local issuer certificate"), "\(refused.output)")
        // One issuer for the run: the next mirror chains to the same one.
        #expect(try lab.minter.mirrorLeaf(for: "other.example", now: wall).1.issuerFingerprint == presented.issuerFingerprint)
        #expect(try FileManager.default.contentsOfDirectory(atPath: lab.folder.path).sorted().filter { !$0.hasPrefix("leaf-") } == before)
    }

    @Test("untrusted-issuer: refused against the installed CA, signed by the recording's own CA, kept across restarts")
    func untrustedIssuerLeaf() throws {
        let lab = try Lab()
        let wall = Int(Date().timeIntervalSince1970)
        let (leaf, presented) = try lab.minter.leaf(
            for: Self.host, presentation: Self.presentation(.validation(.untrustedIssuer)), now: wall)
        #expect(presented.defect == .untrustedIssuer && presented.name == Self.host)
        #expect(presented.issuerFingerprint != lab.installed.fingerprint)
        let refused = try lab.verify(leaf)
        #expect(!refused.ok && refused.output.contains("unable to get local issuer certificate"), "\(refused.output)")
        // The recording's CA is the only one it chains to, and it is the one the fingerprint names.
        let files = RequestedLeafMinter.recordingAuthorityFiles(sessionID: 41, in: lab.folder.path)
        let accepted = try lab.verify(leaf, caFile: files.certificatePath)
        #expect(accepted.ok, "\(accepted.output)")
        #expect(try CertificateAuthority.load(files).fingerprint == presented.issuerFingerprint)
        let keyMode = try FileManager.default.attributesOfItem(atPath: files.keyPath)[.posixPermissions] as? Int
        #expect(keyMode == 0o600)
        // A second minter (the daemon restarted) signs with the same CA; another recording gets its own.
        let again = RequestedLeafMinter(installed: try LeafMinter(authority: lab.installed, cacheEntries: 8), recordingAuthorityDirectory: lab.folder.path)
        let (_, second) = try again.leaf(for: Self.host, presentation: Self.presentation(.validation(.untrustedIssuer)), now: wall)
        #expect(second.issuerFingerprint == presented.issuerFingerprint)
        let (_, other) = try again.leaf(
            for: Self.host, presentation: Self.presentation(.validation(.untrustedIssuer), session: 42), now: wall)
        #expect(other.issuerFingerprint != presented.issuerFingerprint)
    }

    @Test("wrong-name: the installed CA's signature for a name under .invalid, refused only when the name is checked")
    func wrongNameLeaf() throws {
        let lab = try Lab()
        let (leaf, presented) = try lab.minter.leaf(
            for: Self.host, presentation: Self.presentation(.validation(.wrongName)), now: Int(Date().timeIntervalSince1970))
        #expect(presented.defect == .wrongName && presented.name.hasSuffix(".invalid") && presented.name != Self.host)
        #expect(presented.issuerFingerprint == lab.installed.fingerprint)
        let refused = try lab.verify(leaf)
        #expect(!refused.ok && refused.output.contains("hostname mismatch"), "\(refused.output)")
        let chainOnly = try lab.verify(leaf, hostname: nil)
        #expect(chainOnly.ok, "\(chainOnly.output)")
    }

    @Test("expired: the installed CA's signature for the announced name, its validity over before the recording began")
    func expiredLeaf() throws {
        let lab = try Lab()
        let (leaf, presented) = try lab.minter.leaf(
            for: Self.host, presentation: Self.presentation(.validation(.expired)), now: Int(Date().timeIntervalSince1970))
        #expect(presented.defect == .expired && presented.name == Self.host && presented.issuerFingerprint == lab.installed.fingerprint)
        #expect(presented.notAfter < Int(Self.began.timeIntervalSince1970))
        let refused = try lab.verify(leaf)
        #expect(!refused.ok && refused.output.contains("certificate has expired"), "\(refused.output)")
    }
}
