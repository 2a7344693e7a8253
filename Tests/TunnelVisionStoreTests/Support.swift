import Foundation
import TunnelVisionModel
@testable import TunnelVisionStore

/// A fresh database file in its own folder, removed when the test's scope ends.
final class TemporaryDatabase {
    let folder: URL
    var path: String { folder.appendingPathComponent("history.sqlite").path }

    init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tv-store-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func open() throws -> History { try History(path: path) }
}

let instant = Date(timeIntervalSince1970: 1_790_000_000)

func at(_ seconds: Double) -> Date { instant.addingTimeInterval(seconds) }

func pattern(_ text: String) -> DomainPattern { try! DomainPattern(parsing: text) }

func projectDraft(_ name: String = "Acme Health", allow patterns: [String] = []) -> AuditProjectDraft {
    AuditProjectDraft(
        name: name, bundleIdentifier: "de.acme.health", catalogueVersion: nil,
        allowlist: patterns.map { AllowlistEntry(pattern: pattern($0), note: nil) })
}

func sessionDraft(project: Int64, kind: RecordingKind = .audit(AppRelease(version: "2.4.1", build: "310"))) -> RecordingDraft {
    RecordingDraft(
        projectID: project, kind: kind,
        environment: AuditEnvironment(deviceModel: "Pixel 8", osVersion: "Android 15", toolVersion: "test"),
        inspection: InspectionConditions(inspectionEnabled: true, caTrusted: false), notes: "lab 2")
}

func udpFlow(port: UInt16, at date: Date) -> FlowState {
    FlowState(
        key: FlowKey(proto: .udp, Endpoint(address: IPAddress("10.77.0.2")!, port: port), Endpoint(address: IPAddress("10.0.0.1")!, port: 53)),
        firstSeen: Instant(date))
}

extension History {
    /// A capture run begun at `at(0)` and a recording of the default project started at `at(1)`:
    /// where a test of a recording's flows begins.
    func openRecordingOnACaptureRun() throws -> (capture: CaptureRun, project: AuditProject, session: Recording) {
        let capture = try beginCaptureRun(toolVersion: "t", input: "i", at: at(0))
        let project = try createAuditProject(projectDraft(), at: at(0))
        return (capture, project, try startRecording(sessionDraft(project: project.id), at: at(1)))
    }

    /// Writes flows as new rows in one batch; returns their ids in order.
    func insert(_ flows: [FlowState], captureRun: Int64) throws -> [Int64] {
        let upserts = flows.enumerated().map { FlowUpsert(handle: UInt64($0.offset), rowID: nil, state: $0.element) }
        let rows = try write(HistoryBatch(flows: upserts), captureRun: captureRun)
        return upserts.map { rows[$0.handle]! }
    }
}
