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
        #expect(json.contains(#""exportedAt" : "2026-10-09T14:23:07.250000000Z""#))
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

/// The bundle's own JSON writer against Foundation's JSONEncoder, configured as the documents
/// are specified: the same bytes, document for document.
struct EvidenceJSONEncoderTests {
    static func foundation(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(EvidenceJSON.instant(date))
        }
        return try encoder.encode(value) + Data([0x0A])
    }

    @Test func writesWhatFoundationWrites() throws {
        let bundle = try EvidenceFixture.bundle()
        #expect(try EvidenceJSON.encode(bundle.session) == Self.foundation(bundle.session))
        #expect(try EvidenceJSON.encode(bundle.findings) == Self.foundation(bundle.findings))
        let capture = EvidenceReportTests.capture(written: 5, notCaptured: 2, beforeStart: 1)
        #expect(try EvidenceJSON.encode(capture) == Self.foundation(capture))
        let manifest = try EvidenceManifest(sessionID: 1, exportedAt: Self.instant, entries: [
            .init(name: "a", byteCount: 1, sha256: String(repeating: "0", count: 64)),
        ])
        #expect(try EvidenceJSON.encode(manifest) == Self.foundation(manifest))
    }

    struct Odd: Encodable {
        let text = "quote \" backslash \\ tab \t bell \u{7} slash / é"
        let numbers: [Double] = [0, 2.5, -3, 0.1, 1e-7, 123_456_789.125]
        let empty: [Int] = []
        let nested = [["b": 1, "a": 2], [:]]
        let flag = false
        /// An integer type the writer must know, or the Codable path asks for it again forever.
        let pid: Int32 = -7
        let small: Int8 = -128
    }

    static let instant = Date(timeIntervalSince1970: 1_791_555_787.25)

    @Test func escapesAndNumbersAsFoundationDoes() throws {
        #expect(try String(decoding: EvidenceJSON.encode(Odd()), as: UTF8.self) == String(decoding: Self.foundation(Odd()), as: UTF8.self))
    }
}
