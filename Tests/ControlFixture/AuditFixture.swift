import Foundation
import TunnelVisionModel
import TunnelVisionControl
import TunnelVisionStore

/// Seeds the project demos and tests start from (`tvfixture`): one project with a
/// baseline and an audit session, both ended, each tagged with its share of synthetic flows by
/// the path the daemon takes — the session is open while its flows are written, and the store
/// tags them on the way in. The rest of the flows fall before, between and after the two.
struct AuditFixture {
    let projectName: String
    /// Where the seeded history begins; every instant is an offset from it.
    let start: Date
    /// The build that seeds it, stored as the capture session's and the sessions' tool.
    let toolVersion: String

    struct Seeded {
        let project: AuditProject
        let baseline: Recording
        let audit: Recording
        let flowCount: Int
    }

    static let release = AppRelease(version: "2.4.1", build: "310")

    func seed(into store: History) throws -> Seeded {
        if try store.auditProjects().contains(where: { $0.name == projectName }) {
            throw ControlError.refusal(.projectNameTaken(projectName))
        }
        let capture = try store.beginCaptureRun(toolVersion: toolVersion, input: "fixture", at: start)
        var handles = FlowHandle(1)
        var written = 0
        func write(_ plan: [FixtureFlows.Planned], from origin: Date) throws {
            let upserts = plan.map { planned in
                defer { handles += 1 }
                return FlowUpsert(handle: handles, rowID: nil, state: planned.state(Instant(origin.addingTimeInterval(planned.offset))))
            }
            try store.write(HistoryBatch(flows: upserts, packets: upserts.flatMap(Self.packets)), captureRun: capture.id)
            written += upserts.count
        }

        let project = try store.createAuditProject(AuditProjectDraft(
            name: projectName, bundleIdentifier: "com.acme.health",
            allowlist: [
                AllowlistEntry(pattern: try DomainPattern(parsing: "*.acme.example"), note: "backend"),
                AllowlistEntry(pattern: try DomainPattern(parsing: "*.sentry.io"), note: "crash reporting"),
            ]), at: start)
        try write(FixtureFlows.before, from: start)

        let baselineStart = start.addingTimeInterval(10 * 60)
        let baseline = try store.startRecording(draft(project, .baseline), at: baselineStart)
        try write(FixtureFlows.baseline, from: baselineStart)
        let baselineEnded = try store.endRecording(id: baseline.id, at: baselineStart.addingTimeInterval(5 * 60))
        try write(FixtureFlows.between, from: baselineStart.addingTimeInterval(6 * 60))

        let auditStart = start.addingTimeInterval(30 * 60)
        let audit = try store.startRecording(draft(project, .audit(Self.release)), at: auditStart)
        try write(FixtureFlows.audit, from: auditStart)
        for (offset, kind) in Self.markers {
            _ = try store.addMarker(kind, toSession: audit.id, at: auditStart.addingTimeInterval(offset))
        }
        let auditEnded = try store.endRecording(id: audit.id, at: auditStart.addingTimeInterval(5 * 60))
        try write(FixtureFlows.after, from: auditStart.addingTimeInterval(6 * 60))
        try store.endCaptureRun(id: capture.id, at: auditStart.addingTimeInterval(10 * 60))
        return Seeded(project: project, baseline: baselineEnded, audit: auditEnded, flowCount: written)
    }

    /// Consent a minute in, so that the first flow of the audit comes before it.
    static let markers: [(TimeInterval, SessionMarkerKind)] = [
        (60, .consentGiven), (80, .loggedIn), (200, .custom("opened the diary")), (260, .loggedOut),
    ]

    private func draft(_ project: AuditProject, _ kind: RecordingKind) -> RecordingDraft {
        let conditions = RecordingConditions(deviceModel: "Pixel 8", osVersion: "Android 15", caTrusted: false)
        return RecordingDraft(
            projectID: project.id, kind: kind, environment: conditions.environment(toolVersion: toolVersion),
            inspection: InspectionConditions(inspectionEnabled: false, caTrusted: false), gatewayResolvers: [FixtureFlows.resolver],
            notes: "Seeded by tvfixture.")
    }

    /// A packet each way at the flow's first instant, recorded without bytes: the fixture writes no capture file.
    private static func packets(of upsert: FlowUpsert) -> [PacketRecord] {
        let first = upsert.state.firstSeen.nanosecondsSinceEpoch
        return [
            PacketRecord(flow: upsert.handle, timestampNanoseconds: first, direction: .outbound, wireLength: 60, location: .notCaptured),
            PacketRecord(flow: upsert.handle, timestampNanoseconds: first + 1_000_000, direction: .inbound, wireLength: 60, location: .notCaptured),
        ]
    }
}
