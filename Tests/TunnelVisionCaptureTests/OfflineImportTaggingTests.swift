import CaptureTestSupport
import Foundation
import Testing
import TunnelVisionImport
import TunnelVisionModel
import TunnelVisionStore

/// An import reads old traffic now: it never joins whatever is being recorded meanwhile.
struct OfflineImportTaggingTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Captures").path

    @Test(arguments: [false, true])
    func anImportWhileARecordingIsOpenTagsNothing(recordsAPhone: Bool) throws {
        let work = try TemporaryDirectory()
        let store = try History(path: work.file("history.sqlite"))
        let project = try store.createAuditProject(
            AuditProjectDraft(name: "Import", bundleIdentifier: nil, catalogueVersion: nil, allowlist: []), at: Date())
        var draft = RecordingDraft(
            projectID: project.id, kind: .baseline,
            environment: AuditEnvironment(deviceModel: "Pixel 8", osVersion: "15", toolVersion: "test"),
            inspection: InspectionConditions(inspectionEnabled: false, caTrusted: false))
        if recordsAPhone {
            // The phone has the corpus's client addresses: live, its flows would be tagged.
            let phone = Phone(name: "pixel", ipv4: IPAddress("198.51.100.1")!, ipv6: IPAddress("2001:db8:100::1")!,
                              publicKey: Data(repeating: 7, count: 32).base64EncodedString(), keyFingerprint: "f")
            try store.addPhone(phone, at: Date())
            draft.phone = phone
        }
        let session = try store.startRecording(draft, at: Date(timeIntervalSince1970: 0))
        let request = OfflineImportRequest(
            capturePath: "\(Self.corpus)/http-ipv4-ipv6.pcap", captureDirectory: work.file("captures"), clientNetworks: [])
        let summary = try OfflineImport.run(request, into: store, toolVersion: "test")
        #expect(summary.flows > 0)
        #expect(try store.flowCount(inRecording: session.id) == 0)
    }
}
