import Foundation
import Testing
import TunnelVisionEvidence

struct EvidenceManifestTests {
    static let digest = String(repeating: "ab", count: 32)
    static let instant = Date(timeIntervalSince1970: 1_791_555_787.25)

    static func entry(_ name: String, _ sha256: String = digest) -> EvidenceManifest.Entry {
        EvidenceManifest.Entry(name: name, byteCount: 3, sha256: sha256)
    }

    @Test func listsTheFilesSortedByName() throws {
        let manifest = try EvidenceManifest(
            sessionID: 7, exportedAt: Self.instant,
            entries: [Self.entry("session.json"), Self.entry("capture.pcapng"), Self.entry("flows.csv")])
        #expect(manifest.files.map(\.name) == ["capture.pcapng", "flows.csv", "session.json"])
        let json = String(decoding: try manifest.file().data, as: UTF8.self)
        #expect(json.contains(#""exportedAt" : "2026-10-09T14:23:07.250Z""#))
        #expect(json.contains(#""format" : "tunnelvision.evidence.manifest""#))
        #expect(json.contains(#""formatVersion" : 1"#))
        #expect(try manifest.file().name == "manifest.json")
    }

    @Test(arguments: [
        ([], EvidenceManifestError.noFiles),
        ([entry("a/b")], .nameNotPlain("a/b")),
        ([entry("")], .nameNotPlain("")),
        ([entry(".hidden")], .nameNotPlain(".hidden")),
        ([entry("two words")], .nameNotPlain("two words")),
        ([entry("..")], .nameNotPlain("..")),
        ([entry("manifest.json")], .listsItself),
        ([entry("a.json"), entry("a.json")], .duplicateName("a.json")),
        ([entry("a.json", String(repeating: "AB", count: 32))], .malformedDigest(name: "a.json")),
        ([entry("a.json", "abc")], .malformedDigest(name: "a.json")),
        ([entry("a.json", String(repeating: "g", count: 64))], .malformedDigest(name: "a.json")),
    ] as [([EvidenceManifest.Entry], EvidenceManifestError)])
    func refusesWhatCannotBeVerified(entries: [EvidenceManifest.Entry], error: EvidenceManifestError) {
        #expect(throws: error) { try EvidenceManifest(sessionID: 1, exportedAt: Self.instant, entries: entries) }
    }
}
