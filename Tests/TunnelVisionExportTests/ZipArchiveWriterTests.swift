import Foundation
import Testing
import TunnelVisionCaptureFiles
import TunnelVisionDigest
@testable import TunnelVisionExport

/// The zip the exporter writes itself, read by tools that are not ours: unzip tests it and
/// Python's zipfile reads every member back, checking each CRC as it does.
struct ZipArchiveWriterTests {
    static let instant = Date(timeIntervalSince1970: 1_791_560_000.5)

    /// Name, method, size, mode and SHA-256 of every member, as Python's zipfile reads them.
    static let pythonListing = """
        import hashlib, sys, zipfile
        with zipfile.ZipFile(sys.argv[1]) as archive:
            for info in archive.infolist():
                data = archive.read(info)
                kind = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}[info.compress_type]
                print(info.filename, kind, len(data), oct(info.external_attr >> 16), hashlib.sha256(data).hexdigest())
        """

    static func noise(_ count: Int) -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }

    static func sha256(_ bytes: [UInt8]) -> String { SHA256Hasher.hex(of: Data(bytes)) }

    @Test(arguments: [false, true])
    func storedAndDeflatedMembersReadBackWithTheirModesAndDigests(zip64Capture: Bool) throws {
        let scratch = try ScratchDirectory()
        let path = scratch.url.appendingPathComponent("a.zip").path
        let text = Array(String(repeating: "{\n  \"flow\" : 12,\n  \"sni\" : \"api.acme.example\"\n},\n", count: 60_000).utf8)
        let ciphertext = Self.noise(3 * ZipMemberOutput.bufferSize + 17)
        let zip = try ZipArchiveWriter(path: path, modifiedAt: Self.instant)
        try zip.addDirectory("top", mode: EvidenceArchive.folderMode)
        let (_, deflated) = try zip.addMember("top/text.json", method: .deflated, mode: EvidenceArchive.fileMode) { output in
            for start in stride(from: 0, to: text.count, by: 70_001) {
                try output.write(Array(text[start..<min(text.count, start + 70_001)]))
            }
        }
        let (_, stored) = try zip.addMember("top/capture.pcapng", method: .stored, mode: EvidenceArchive.fileMode, mayPass4GiB: zip64Capture) { output in
            try output.append { $0 += ciphertext }
        }
        let (_, empty) = try zip.addMember("top/empty", method: .deflated, mode: EvidenceArchive.fileMode) { _ in }
        try zip.finish()

        #expect(deflated.byteCount == UInt64(text.count) && deflated.compressedCount < deflated.byteCount / 10)
        #expect(stored.byteCount == UInt64(ciphertext.count) && stored.compressedCount == stored.byteCount)
        #expect(deflated.sha256 == Self.sha256(text) && stored.sha256 == Self.sha256(ciphertext) && empty.sha256 == Self.sha256([]))
        _ = try ForeignTool.run("unzip", ["-tq", path])
        // Written text, capture, empty; listed by name.
        #expect(try ForeignTool.run("unzip", ["-Z1", path]) == "top/\ntop/capture.pcapng\ntop/empty\ntop/text.json\n")
        let listing = try ForeignTool.run("python3", ["-c", Self.pythonListing, path]).split(separator: "\n")
        #expect(listing == [
            "top/ stored 0 0o40750 \(Self.sha256([]))",
            "top/capture.pcapng stored \(ciphertext.count) 0o100640 \(Self.sha256(ciphertext))",
            "top/empty deflated 0 0o100640 \(Self.sha256([]))",
            "top/text.json deflated \(text.count) 0o100640 \(Self.sha256(text))",
        ])
        let file = try #require(FileManager.default.contents(atPath: path))
        #expect(file.count == Int(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? -1))
    }

    @Test func itsTimeIsTheExportsInLocalTimeAsUnzipShowsIt() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.url.appendingPathComponent("t.zip").path
        let zip = try ZipArchiveWriter(path: path, modifiedAt: Self.instant)
        _ = try zip.addMember("a", method: .deflated, mode: EvidenceArchive.fileMode) { try $0.write([0x61]) }
        try zip.finish()
        var seconds = time_t(Self.instant.timeIntervalSince1970)
        var parts = tm()
        _ = localtime_r(&seconds, &parts)
        let expected = String(format: "%04d%02d%02d.%02d%02d%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                              parts.tm_hour, parts.tm_min, parts.tm_sec / 2 * 2)
        #expect(try ForeignTool.run("zipinfo", ["-T", path]).contains(expected))
    }

    @Test func anArchiveNotFinishedIsRemoved() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.url.appendingPathComponent("u.zip").path
        struct Stop: Error {}
        do {
            let zip = try ZipArchiveWriter(path: path, modifiedAt: Self.instant)
            #expect(throws: Stop.self) {
                try zip.addMember("a", method: .stored, mode: EvidenceArchive.fileMode) { _ in throw Stop() }
            }
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        let first = try ZipArchiveWriter(path: path, modifiedAt: Self.instant)
        #expect(throws: ZipArchiveWriter.Failure.self) { try ZipArchiveWriter(path: path, modifiedAt: Self.instant) }
        withExtendedLifetime(first) {}
    }
}
