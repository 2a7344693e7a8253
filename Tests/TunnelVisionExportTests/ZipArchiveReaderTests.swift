import Foundation
import Testing
@testable import TunnelVisionExport

/// The reader `tvctl verify` opens a bundle with: what our writer (and Python's zipfile) wrote
/// reads back byte for byte, zip64 included; a lying header, a flipped byte or a cut file is
/// refused, never read past or trusted.
struct ZipArchiveReaderTests {
    static func archive(in scratch: ScratchDirectory, zip64: Bool = false) throws -> (path: String, text: [UInt8], noise: [UInt8]) {
        let path = scratch.url.appendingPathComponent("a.zip").path
        let text = Array(String(repeating: "flow,host\n7,api.acme.example\n", count: 20_000).utf8)
        let noise = ZipArchiveWriterTests.noise(300_017)
        let zip = try ZipArchiveWriter(path: path, modifiedAt: ZipArchiveWriterTests.instant)
        try zip.addDirectory("top", mode: EvidenceArchive.folderMode)
        _ = try zip.addMember("top/flows.csv", method: .deflated, mode: EvidenceArchive.fileMode) { try $0.write(text) }
        _ = try zip.addMember("top/capture.pcapng", method: .stored, mode: EvidenceArchive.fileMode, mayPass4GiB: zip64) {
            try $0.write(noise)
        }
        try zip.finish()
        return (path, text, noise)
    }

    @Test(arguments: [false, true])
    func whatTheWriterWroteReadsBackByteForByte(zip64: Bool) throws {
        let scratch = try ScratchDirectory()
        let (path, text, noise) = try Self.archive(in: scratch, zip64: zip64)
        let reader = try ZipArchiveReader(path: path)
        #expect(reader.members.map(\.name).sorted() == ["top/", "top/capture.pcapng", "top/flows.csv"])
        let csv = try #require(reader.members.first { $0.name == "top/flows.csv" })
        #expect(try reader.contents(of: csv) == text)
        let capture = try #require(reader.members.first { $0.name == "top/capture.pcapng" })
        #expect(try reader.contents(of: capture, limit: 1 << 20) == noise)
    }

    @Test func aHeaderClaimingMoreThanTheArchiveHoldsIsRefusedBeforeAnythingIsRead() throws {
        let scratch = try ScratchDirectory()
        let (path, _, _) = try Self.archive(in: scratch)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // The central directory entry of capture.pcapng: its compressed and uncompressed sizes.
        let name = Array("top/capture.pcapng".utf8)
        let signature: [UInt8] = [0x50, 0x4B, 0x01, 0x02]
        func isEntry(_ index: Int) -> Bool {
            Array(bytes[index..<(index + 4)]) == signature && Array(bytes[(index + 46)..<(index + 46 + name.count)]) == name
        }
        let entry = try #require((0..<(bytes.count - 46 - name.count)).first(where: isEntry))
        bytes.replaceSubrange((entry + 20)..<(entry + 28), with: [0xF0, 0xFF, 0xFF, 0xFF, 0xF0, 0xFF, 0xFF, 0xFF])
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try ZipArchiveReader(path: path)
        } throws: { error in
            error as? ZipArchiveReader.Failure
                == .sizeBeyondArchive(name: "top/capture.pcapng", claimed: 0xFFFF_FFF0, archive: UInt64(bytes.count))
        }
    }

    @Test func aFlippedByteInAStoredMemberFailsItsCRC() throws {
        let scratch = try ScratchDirectory()
        let (path, _, noise) = try Self.archive(in: scratch)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let opening = Array(noise.prefix(64))
        func isStart(_ index: Int) -> Bool { Array(bytes[index..<(index + 64)]) == opening }
        let start = try #require((0..<(bytes.count - 64)).first(where: isStart))
        bytes[start + 1000] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let reader = try ZipArchiveReader(path: path)
        let capture = try #require(reader.members.first { $0.name == "top/capture.pcapng" })
        #expect(throws: ZipArchiveReader.Failure.crcMismatch(name: "top/capture.pcapng")) { try reader.read(capture) { _ in } }
    }

    @Test func aCutArchiveOrOneThatIsNoZipIsRefused() throws {
        let scratch = try ScratchDirectory()
        let (path, _, _) = try Self.archive(in: scratch)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try bytes.prefix(bytes.count - 30).write(to: URL(fileURLWithPath: path))
        #expect(throws: ZipArchiveReader.Failure.notAZip) { _ = try ZipArchiveReader(path: path) }
        try Data("PK".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: ZipArchiveReader.Failure.notAZip) { _ = try ZipArchiveReader(path: path) }
    }
}
