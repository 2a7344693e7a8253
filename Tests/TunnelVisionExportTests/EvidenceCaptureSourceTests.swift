import EvidenceSeeding
import Foundation
import Testing
import TunnelVisionEvidence
@testable import TunnelVisionExport
import TunnelVisionModel
import TunnelVisionStore

/// What the export does with a source file that is not what the history says it is.
struct EvidenceCaptureSourceTests {
    /// The history's second capture file of the seeded session and the packets pointing at it.
    static func victim(of seed: EvidenceSeed) throws -> (path: String, packets: [SessionCapturedPacket]) {
        let store = try History(path: seed.databasePath)
        let sequences = try store.reading { try $0.captureFileSequences(inRecording: seed.sessionID) }.sorted()
        let files = try store.reading { try $0.captureFiles() }
        let file = try #require(files.first { $0.sequence == sequences[1] })
        let packets = try store.reading { try $0.capturedPackets(inRecording: seed.sessionID, fileSequence: file.sequence) }
        return (file.path, packets)
    }

    /// Overwrites four bytes of the record header at `offset` (little-endian, as the daemon writes).
    static func patch(_ path: String, recordAt offset: UInt64, field: UInt64, value: UInt32) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: offset + field)
        try handle.write(contentsOf: withUnsafeBytes(of: value.littleEndian) { Data($0) })
    }

    @Test func aRecordThatIsNotTheOneItsRowDescribesIsCountedUnreadable() throws {
        var patched = 0
        let export = try EvidenceExporterTests.export { seed in
            let (path, packets) = try Self.victim(of: seed)
            try #require(packets.count >= 2)
            // One record claims another length on the wire, another a later microsecond.
            try Self.patch(path, recordAt: packets[0].fileOffset, field: 12, value: packets[0].wireLength + 1)
            let microseconds = packets[1].timestampNanoseconds / 1_000 % 1_000_000
            try Self.patch(path, recordAt: packets[1].fileOffset, field: 4, value: UInt32((microseconds + 1) % 1_000_000))
            patched = 2
        }
        let capture = export.result.capture
        #expect(capture.packets.count(.recordUnreadable) == patched)
        #expect(capture.packets.written == capture.packets.recorded - patched)
        #expect(capture.sourceFiles.filter { $0.packets != $0.written }.count == 1)
        guard case .incomplete(_, _, let missing, _) = export.result.captureStanding else {
            Issue.record("standing: \(export.result.captureStanding)")
            return
        }
        #expect(missing.map(\.reason) == [.recordUnreadable])
    }

    @Test func aCaptureFileThatCannotBeOpenedIsARefusalNamingIt() throws {
        var path = ""
        let error = #expect(throws: EvidenceExportError.self) {
            _ = try EvidenceExporterTests.export { seed in
                path = try Self.victim(of: seed).path
                // A link to itself: the name is there, and no one, root included, can open it.
                try FileManager.default.removeItem(atPath: path)
                #expect(symlink(path, path) == 0)
            }
        }
        #expect(error == .captureFileUnreadable(path: path, errno: ELOOP))
    }

    @Test(.enabled(if: geteuid() != 0, "root reads a file of mode 000; the link loop above covers the refusal"))
    func aCaptureFileWithoutReadPermissionIsARefusalNamingIt() throws {
        var path = ""
        let error = #expect(throws: EvidenceExportError.self) {
            _ = try EvidenceExporterTests.export { seed in
                path = try Self.victim(of: seed).path
                #expect(chmod(path, 0) == 0)
            }
        }
        #expect(error == .captureFileUnreadable(path: path, errno: EACCES))
    }

    @Test func aFIFOInPlaceOfACaptureFileIsNeverOpened() throws {
        var path = ""
        // Should the export open the FIFO, this writer lets the open return after a while, so
        // that the test fails on the outcome instead of hanging.
        var rescue: Thread?
        let error = #expect(throws: EvidenceExportError.self) {
            _ = try EvidenceExporterTests.export { seed in
                path = try Self.victim(of: seed).path
                try FileManager.default.removeItem(atPath: path)
                #expect(mkfifo(path, 0o600) == 0)
                let fifo = path
                rescue = Thread {
                    Thread.sleep(forTimeInterval: 10)
                    let writer = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                    if writer >= 0 { close(writer) }
                }
                rescue?.start()
            }
        }
        #expect(error == .captureFileNotRegular(path: path))
    }
}
