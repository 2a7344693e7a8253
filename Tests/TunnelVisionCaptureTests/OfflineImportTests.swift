import CaptureTestSupport
import Foundation
import Testing
import TunnelVisionCaptureFiles
import TunnelVisionImport
import TunnelVisionModel
import TunnelVisionStore

/// An import of a real capture into a real history and capture directory.
@Suite(.enabled(if: externalCapturesArePresent, "skipped extra: the external captures are absent"))
struct OfflineImportTests {
    static let captures = externalCaptures

    static func importing(_ file: String) throws -> (summary: OfflineImport.Summary, store: History, directory: String) {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("tv-import-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let request = OfflineImportRequest(
            capturePath: "\(captures)/\(file)", captureDirectory: "\(work)/captures", clientNetworks: []
        )
        let store = try History(path: "\(work)/history.sqlite")
        let summary = try OfflineImport.run(request, into: store, toolVersion: "test")
        return (summary, store, "\(work)/captures")
    }

    @Test func theHistoryHoldsTheFlowAsTheEngineReadIt() throws {
        let (summary, store, _) = try Self.importing("zeek/tls1_1.pcap")
        #expect(summary.packets == 23)
        let flows = try store.reading { try $0.flows(inCaptureRun: summary.captureRun) }
        let flow = try #require(flows.first)
        #expect(flows.count == 1)
        #expect(flow.packetCount == 23)
        #expect(flow.serverTLS?.negotiation?.version == .tls11)
        #expect(flow.streamOpening == .tlsHandshake)
        guard case .presented(let chain, true) = flow.certificateVisibility else {
            Issue.record("the chain did not survive the store")
            return
        }
        #expect(chain.count == 3)
        let session = try #require(try store.captureRuns().first { $0.id == summary.captureRun })
        #expect(session.input.hasPrefix("file:/"))
        #expect(session.endedAt != nil)
    }

    @Test func everyPacketIsCopiedAsRawIPWhereItsRowPoints() throws {
        // Ethernet with VLAN tags in the file; raw IP in the capture files.
        let (summary, store, directory) = try Self.importing("zeek/http-qinq-0.pcap")
        let files = try store.captureFiles()
        let file = try #require(files.first)
        #expect(files.count == 1)
        #expect(file.path.hasPrefix(directory))
        let reader = try CaptureFileReader(path: file.path)
        let offsets = try reader.recordOffsets().complete
        #expect(offsets.count == summary.packets)
        let first = try reader.record(at: try #require(offsets.first))
        #expect(first.bytes.first.map { $0 >> 4 } == 4)
        let flow = try #require(try store.reading { try $0.flows(inCaptureRun: summary.captureRun) }.first)
        #expect(flow.streamOpening == .httpRequest)
    }

    @Test func aFileThatIsNotACaptureIsRefusedBeforeAnythingIsWritten() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("tv-import-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let request = OfflineImportRequest(
            capturePath: "\(Self.captures)/SOURCES.md", captureDirectory: "\(work)/captures", clientNetworks: []
        )
        let store = try History(path: "\(work)/history.sqlite")
        #expect(throws: OfflineImport.ImportError.self) { try OfflineImport.run(request, into: store, toolVersion: "test") }
        // The history is the caller's; the import left no trace in it or beside it.
        #expect(try store.captureRuns().isEmpty)
        #expect(try store.captureFiles().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: "\(work)/captures"))
    }
}
