import EvidenceSeeding
import Foundation
import Testing
import TunnelVisionCaptureFiles
import TunnelVisionDigest
import TunnelVisionEvidence
@testable import TunnelVisionExport
import TunnelVisionModel
@testable import TunnelVisionStore

/// The export checks the source files against the chain the daemon sealed before copying a byte.
struct CaptureChainExportTests {
    private static let sealed = EvidenceSeed.Plan(sealed: true)

    private static func captureDocument(_ export: EvidenceExporterTests.Export) throws -> EvidenceCaptureChain? {
        struct Reading: Decodable { let captureChain: EvidenceCaptureChain? }
        let data = try Data(contentsOf: try export.unpacked().appendingPathComponent("capture.json"))
        return try JSONDecoder().decode(Reading.self, from: data).captureChain
    }

    @Test func aBundleListsEachSourceFileAsSealedWithLinksThatCheckAgainstTheDaemonKey() throws {
        let export = try EvidenceExporterTests.export(plan: Self.sealed)
        let chain = try #require(try Self.captureDocument(export))
        let files = try History(path: export.seed.databasePath).captureFiles()
        #expect(chain.files.count == files.count)
        #expect(chain.files.allSatisfy { $0.standing == .sealed })
        let key = try #require(try CaptureSealKey(besideHistory: export.seed.databasePath).trustedPublicKey())
        #expect(chain.publicKey == Hex.encode(key))
        #expect(CaptureChain.check(chain.links.compactMap(\.seal), publicKey: key) == nil)
        let lines = BundleVerifier(publicKeys: []).verify(bundle: export.result.url.path).lines
        #expect(lines.contains { $0.check == .chain && $0.standing == .holds && $0.finding == .chainHolds(links: files.count, unsealed: 0) })
    }

    @Test func aSourceFileChangedByOneByteIsNamedAndNoBundleIsWritten() throws {
        var changed = ""
        let error = #expect(throws: EvidenceExportError.self) {
            try EvidenceExporterTests.export(plan: Self.sealed) { seed in
                let files = try History(path: seed.databasePath).captureFiles()
                changed = files[1].path
                let handle = try #require(FileHandle(forUpdatingAtPath: changed))
                try handle.seek(toOffset: 100)
                let byte = try #require(try handle.read(upToCount: 1)).first ?? 0
                try handle.seek(toOffset: 100)
                try handle.write(contentsOf: Data([byte ^ 0xFF]))
                try handle.close()
            }
        }
        guard case .captureNotAsSealed(let path, .contentChanged)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(URL(fileURLWithPath: path).lastPathComponent == URL(fileURLWithPath: changed).lastPathComponent)
    }

    @Test func aLinkEditedInTheHistoryIsForgedAndAFileWithoutItsLinkIsRefused() throws {
        let edited = #expect(throws: EvidenceExportError.self) {
            try EvidenceExporterTests.export(plan: Self.sealed) { seed in
                let store = try History(path: seed.databasePath)
                try store.write { db in try db.statement("UPDATE capture_seals SET bytes = bytes + 1 WHERE position = 1").run() }
            }
        }
        guard case .captureNotAsSealed(_, .linkForged)? = edited else { Issue.record("\(String(describing: edited))"); return }

        let removed = #expect(throws: EvidenceExportError.self) {
            try EvidenceExporterTests.export(plan: Self.sealed) { seed in
                let store = try History(path: seed.databasePath)
                try store.write { db in try db.statement("DELETE FROM capture_seals WHERE position = (SELECT MAX(position) FROM capture_seals)").run() }
            }
        }
        guard case .captureNotAsSealed(_, .notSealed)? = removed else { Issue.record("\(String(describing: removed))"); return }
    }

    @Test func filesFinishedBeforeTheDaemonSealedAreListedUnsealed() throws {
        let export = try EvidenceExporterTests.export()
        let chain = try #require(try Self.captureDocument(export))
        #expect(!chain.files.isEmpty && chain.files.allSatisfy { $0.standing == .unsealed })
        #expect(chain.links.isEmpty)
    }
}
