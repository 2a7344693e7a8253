import Foundation
import Testing
import TunnelVisionCaptureFiles
import TunnelVisionDigest
import TunnelVisionEvidence
@testable import TunnelVisionExport

struct SHA256HasherTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    ])
    func agreesWithThePublishedVectors(text: String, digest: String) {
        #expect(SHA256Hasher.hex(of: Data(text.utf8)) == digest)
    }

    @Test func piecesHashAsTheWhole() throws {
        let scratch = try ScratchDirectory()
        let bytes = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
        let hasher = SHA256Hasher()
        for start in stride(from: 0, to: bytes.count, by: 4_097) {
            hasher.update(bytes[start..<min(start + 4_097, bytes.count)])
        }
        #expect(hasher.byteCount == 100_000)
        let file = scratch.url.appendingPathComponent("bytes")
        try bytes.write(to: file)
        let foreign = try ForeignTool.run("sha256sum", [file.path]).prefix(64)
        #expect(hasher.finish() == String(foreign))
        let entry = EvidenceManifest.Entry(hashing: EvidenceFile(name: "bytes", data: bytes))
        #expect(entry.sha256 == String(foreign) && entry.byteCount == 100_000)
    }
}
