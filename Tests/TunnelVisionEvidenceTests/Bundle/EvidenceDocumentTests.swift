import Foundation
import Testing
@testable import TunnelVisionEvidence
import TunnelVisionModel

/// The documents as the exporter writes them, piece by piece, against the same documents
/// encoded whole: the bytes of a bundle do not depend on how they were written.
struct EvidenceDocumentTests {
    /// Gathers what it is handed, in pieces, and counts the pieces.
    final class Pieces: EvidenceOutput {
        var bytes: [UInt8] = []
        var largest = 0
        var count = 0

        func write(_ bytes: UnsafeRawBufferPointer) {
            self.bytes.append(contentsOf: bytes)
            largest = max(largest, bytes.count)
            count += 1
        }
    }

    static func streamed(_ value: some EvidenceJSONWritable, pieceSize: Int = EvidenceJSONWriter.pieceSize) throws -> Pieces {
        let pieces = Pieces()
        var json = EvidenceJSONWriter(output: pieces, pieceSize: pieceSize)
        try json.value(value)
        try json.flush()
        return pieces
    }

    @Test func flowsJSONWrittenPieceByPieceIsTheDocumentEncodedWhole() throws {
        let bundle = try EvidenceFixture.bundle()
        var whole = Array(try EvidenceJSON.encode(bundle.flows))
        whole.removeLast()
        #expect(try Self.streamed(bundle.flows).bytes == whole)
        #expect(try Self.streamed(bundle.flows, pieceSize: 64).bytes == whole)
    }

    @Test func flowsJSONIsHandedOverInPiecesNotWhole() throws {
        let bundle = try EvidenceFixture.bundle()
        let pieces = try Self.streamed(bundle.flows, pieceSize: 256)
        let largestFlow = try bundle.flows.flows.map { try EvidenceJSON.encode($0).count }.max() ?? 0
        #expect(bundle.flows.flows.count > 1)
        #expect(pieces.count > bundle.flows.flows.count)
        #expect(pieces.largest < 256 + largestFlow)
    }

    struct TwoArrays: Encodable {
        let zulu: [Int] = [3, 1]
        let alpha: [String] = []
        let middle = "m"
        let nested = [[1, 2], []]
    }

    @Test func emptyAndNestedArraysAreWrittenAsFoundationWritesThem() throws {
        let value = TwoArrays()
        #expect(try EvidenceJSON.encode(value) == EvidenceJSONEncoderTests.foundation(value))
        #expect(try EvidenceDocument(name: "two", json: value).file().data == EvidenceJSON.encode(value))
    }

    @Test func theBundlesDocumentsAreTheFilesItEncodes() throws {
        let bundle = try EvidenceFixture.bundle()
        let files = try bundle.documentFiles()
        #expect(files.map(\.name) == ["session.json", "flows.json", "flows.csv", "findings.json"])
        #expect(files[1].data == (try EvidenceJSON.encode(bundle.flows)))
        #expect(files[3].data == (try EvidenceJSON.encode(bundle.findings)))
        let csv = Pieces()
        try EvidenceFlowsCSV.write(bundle.flows.flows, to: csv)
        #expect(Data(csv.bytes) == files[2].data)
    }

    /// The instant written digit by digit against the format it replaced.
    static func formatted(_ date: Date) -> String {
        let (seconds, nanoseconds) = Instant.floorDivided(date.nanosecondsSinceEpoch, by: 1_000_000_000)
        let (days, secondOfDay) = Instant.floorDivided(seconds, by: 86_400)
        let (year, month, day) = Instant.civilDate(daysSinceEpoch: days)
        return String(
            format: "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%09lldZ", year, month, day,
            secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60, nanoseconds)
    }

    @Test(arguments: [
        0, 1_791_555_787.25, 1_791_555_787.000_000_123, -1.5, -62_135_596_800, 253_402_300_799.999, 951_782_400, 4_107_542_400,
        -62_167_219_200, -62_167_219_201, 253_402_300_800,
    ] as [Double])
    func anInstantIsWrittenAsTheFormatWroteIt(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(EvidenceJSON.instant(date) == Self.formatted(date))
    }

    @Test func instantsOverTwoAndAHalfCenturiesAreWrittenAsTheFormatWroteThem() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        for _ in 0..<5_000 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            let nanoseconds = Int64(state % 8_000_000_000_000_000_000) - 4_000_000_000_000_000_000
            let date = Date(nanosecondsSinceEpoch: nanoseconds)
            #expect(EvidenceJSON.instant(date) == Self.formatted(date))
        }
    }
}
