import Foundation
import Testing
import TunnelVisionEvidence
@testable import TunnelVisionExport

/// The gateway's signature of a bundle's manifest, checked by Debian's minisign (the auditor's
/// tool) as well as by our own verifier, and refused by both once a byte changes.
struct BundleSignatureTests {
    static func keys(in scratch: ScratchDirectory) throws -> GatewayKeys {
        let keys = GatewayKeys(folder: scratch.url.appendingPathComponent("signing", isDirectory: true))
        _ = try keys.create()
        return keys
    }

    /// The export and the gateway's keys; the keys live in the export's scratch folder, and go with it.
    static func signedExport() throws -> (EvidenceExporterTests.Export, GatewayKeys) {
        var keys: GatewayKeys?
        let export = try EvidenceExporterTests.export(plan: .init(flows: 4)) { _ in } sealingWith: { scratch in
            let made = try Self.keys(in: scratch)
            keys = made
            return EvidenceSealing(signer: try made.signer(), hostName: "gw1.lab")
        }
        return (export, try #require(keys))
    }

    @Test func aSignedBundleVerifiesWithMinisignAndNamesItsKeyInTheManifestAndSessionJSON() throws {
        let (export, keys) = try Self.signedExport()
        let key = try #require(try keys.current())
        #expect(export.result.fileNames.contains("manifest.json.minisig"))
        #expect(export.result.signatureKeyID == key.keyIDText)
        let folder = try export.unpacked()
        let output = try ForeignTool.run("minisign", ["-Vm", "manifest.json", "-P", key.line], in: folder)
        #expect(output.contains("Signature and comment signature verified"))
        #expect(output.contains("tunnelvision session=\(export.seed.sessionID) host=gw1.lab tool=tvctl_1.0.0-test exported=2026-10-09T15:33:20Z"))
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("manifest.json"))) as? [String: Any]
        #expect(manifest?["signatureKeyID"] as? String == key.keyIDText)
        let session = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("session.json"))) as? [String: Any]
        #expect((session?["signature"] as? [String: Any])?["keyID"] as? String == key.keyIDText)
        #expect(BundleVerifier(publicKeys: [key]).verify(bundle: export.result.url.path).holds)
    }

    @Test func minisignRefusesAManifestWithOneByteChanged() throws {
        let (export, keys) = try Self.signedExport()
        let key = try #require(try keys.current())
        let folder = try export.unpacked()
        let manifest = folder.appendingPathComponent("manifest.json")
        var bytes = [UInt8](try Data(contentsOf: manifest))
        let index = try #require(bytes.firstIndex(of: UInt8(ascii: "0")))
        bytes[index] = UInt8(ascii: "1")
        try Data(bytes).write(to: manifest)
        #expect(throws: ForeignTool.Failure.self) { try ForeignTool.run("minisign", ["-Vm", "manifest.json", "-P", key.line], in: folder) }
    }

    @Test func theKeyIDIsMinisignsLittleEndianHexAndThePublicKeyFileReadsBack() throws {
        let key = MinisignPublicKey(keyID: [1, 2, 3, 4, 5, 6, 7, 0xAB], key: Array(repeating: 7, count: 32))
        #expect(key.keyIDText == "AB07060504030201")
        #expect(key.file.hasPrefix("untrusted comment: minisign public key AB07060504030201\n"))
        #expect(MinisignPublicKey(text: key.file) == key)
        #expect(MinisignPublicKey(text: key.line) == key)
        #expect(MinisignPublicKey(text: "RWQ") == nil)
    }

    @Test func aSignatureFromAnotherKeyOrOverOtherBytesIsRefused() throws {
        let scratch = try ScratchDirectory()
        let one = try Self.keys(in: scratch)
        let other = GatewayKeys(folder: scratch.url.appendingPathComponent("other"))
        _ = try other.create()
        let file = Array("a manifest".utf8)
        let signature = try #require(try one.signer()?.sign(file, trustedComment: "t"))
        let parsed = try #require(MinisignSignature(text: signature.text))
        #expect(parsed.verify(file, with: try #require(try one.current())) == .valid)
        #expect(parsed.verify(file + [0x20], with: try #require(try one.current())) == .fileChanged)
        let otherKey = try #require(try other.current())
        #expect(parsed.verify(file, with: otherKey) == .otherKey(signedBy: parsed.keyIDText))
        let forged = signature.text.replacingOccurrences(of: "trusted comment: t", with: "trusted comment: u")
        #expect(MinisignSignature(text: forged)?.verify(file, with: try #require(try one.current())) == .trustedCommentChanged)
    }

    @Test func rotatingKeepsTheOldPublicKeySoAnEarlierBundleStillVerifies() throws {
        let (export, keys) = try Self.signedExport()
        let first = try #require(try keys.current())
        let (old, new) = try keys.rotate()
        #expect(old == first)
        #expect(new != first)
        #expect(try keys.all() == [first, new])
        #expect(try keys.current() == new)
        #expect(BundleVerifier(publicKeys: try keys.all()).verify(bundle: export.result.url.path).holds)
        let onlyNew = BundleVerifier(publicKeys: [new]).verify(bundle: export.result.url.path)
        #expect(!onlyNew.holds)
        #expect(onlyNew.lines.contains { if case .signedByUnknownKey(first.keyIDText, _) = $0.finding { true } else { false } })
    }

    @Test func theKeyFileIsNeverWorldReadable() throws {
        let scratch = try ScratchDirectory()
        let keys = try Self.keys(in: scratch)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: keys.privateKeyPath)[.posixPermissions] as? Int)
        #expect(mode == 0o640)
        let folderMode = try #require(try FileManager.default.attributesOfItem(atPath: keys.folder.path)[.posixPermissions] as? Int)
        #expect(folderMode == 0o750)
        #expect(try keys.create().made == false)
    }

    @Test func anUnsignedBundleSaysSoAndDoesNotVerify() throws {
        let export = try EvidenceExporterTests.export(plan: .init(flows: 2))
        #expect(!export.result.fileNames.contains("manifest.json.minisig"))
        let verification = BundleVerifier(publicKeys: []).verify(bundle: export.result.url.path)
        #expect(!verification.holds)
        #expect(verification.lines.contains(.init(.signature, .absent, .signatureMissing)))
        let session = try String(contentsOf: try export.unpacked().appendingPathComponent("session.json"), encoding: .utf8)
        #expect(session.contains("The bundle is not signed"))
    }
}
