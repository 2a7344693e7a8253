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

    static func streamed(_ value: some Encodable) throws -> Pieces {
        let pieces = Pieces()
        try EvidenceJSON.write(value, to: pieces)
        return pieces
    }

    @Test func eachJSONDocumentWrittenPieceByPieceIsTheDocumentEncodedWhole() throws {
        let bundle = try EvidenceFixture.bundle()
        #expect(try Self.streamed(bundle.session).bytes == Array(EvidenceJSON.encode(bundle.session)))
        #expect(try Self.streamed(bundle.flows).bytes == Array(EvidenceJSON.encode(bundle.flows)))
        #expect(try Self.streamed(bundle.findings).bytes == Array(EvidenceJSON.encode(bundle.findings)))
        let capture = EvidenceReportTests.capture(written: 5, notCaptured: 2, beforeStart: 1)
        #expect(try Self.streamed(capture).bytes == Array(EvidenceJSON.encode(capture)))
        let odd = EvidenceJSONEncoderTests.Odd()
        #expect(try Self.streamed(odd).bytes == Array(EvidenceJSON.encode(odd)))
    }

    @Test func flowsJSONIsHandedOverOneFlowAtATime() throws {
        let bundle = try EvidenceFixture.bundle()
        let pieces = try Self.streamed(bundle.flows)
        let encodedFlows = try bundle.flows.flows.map { try EvidenceJSONEncoder.Slot.bytes(of: $0, depth: 2).count }
        #expect(bundle.flows.flows.count > 1)
        #expect(pieces.count > bundle.flows.flows.count)
        #expect(pieces.largest == encodedFlows.max())
    }

    struct TwoArrays: Encodable {
        let zulu: [Int] = [3, 1]
        let alpha: [String] = []
        let middle = "m"
        let nested = [[1, 2], []]
    }

    @Test func emptyAndNestedArraysAtTheTopAreWrittenAsTheEncoderWritesThem() throws {
        let value = TwoArrays()
        let whole = try EvidenceJSON.encode(value)
        #expect(try Self.streamed(value).bytes == Array(whole))
        #expect(try whole == EvidenceJSONEncoderTests.foundation(value))
        #expect(try Self.streamed([1, 2]).bytes == Array(EvidenceJSON.encode([1, 2])))
        #expect(try Self.streamed("text").bytes == Array(EvidenceJSON.encode("text")))
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
