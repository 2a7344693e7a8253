import Foundation
import Testing
import TunnelVisionBuildStamp
import TunnelVisionModel
import TunnelVisionStore

/// The commands that change the history, end to end: what they say, and what the store then holds.
struct WriteCommandTests {
    @Test func projectLifecycle() throws {
        let history = try ScratchHistory.seeded()
        let path = history.path
        let created = try TVCtlBinary.run(
            ["project", "create", "Vita Diary", "--bundle-id", "de.vita.diary", "--allow", "*.vita.example=backend", "--allow", "sentry.io"],
            database: path)
        #expect(created.output == "Created project 2, Vita Diary.\n", "\(created)")
        #expect(try TVCtlBinary.run(["project", "allow", "vita diary", "CDN.Vita.Example.", "--note", "images"], database: path).output
            == "cdn.vita.example is allowed for Vita Diary (3 entries in its allowlist).\n")
        #expect(try TVCtlBinary.run(["project", "disallow", "2", "sentry.io"], database: path).output
            == "sentry.io is no longer allowed for Vita Diary (2 entries in its allowlist).\n")
        let edited = try TVCtlBinary.run(["project", "edit", "2", "--name", "Vita Diary Pro", "--catalogue", "tr-03161-1_3.0", "--bundle-id", ""], database: path)
        #expect(edited.output == "Updated project 2, Vita Diary Pro.\n")

        let project = try #require(try history.open().auditProject(id: 2))
        #expect(project.name == "Vita Diary Pro")
        #expect(project.bundleIdentifier == nil)
        #expect(project.catalogueVersion == "tr-03161-1_3.0")
        #expect(project.allowlist.map(\.pattern.text) == ["*.vita.example", "cdn.vita.example"])
        #expect(project.allowlist.map(\.note) == ["backend", "images"])

        let deleted = try TVCtlBinary.run(["project", "delete", "Vita Diary Pro", "--yes"], database: path)
        #expect(deleted.output == "Deleted project 2, Vita Diary Pro, and its 0 sessions.\n")
        #expect(try history.open().auditProject(id: 2) == nil)
    }

    static let fingerprint = String(repeating: "ab", count: 32)

    /// What a daemon whose relay runs with a CA loaded publishes, and its heartbeat of now.
    static func relayRunning(in store: History, quicDrop: Bool = false, upstreamMirror: Bool? = nil, beatAt: Date = Date()) throws {
        try store.saveDaemonSettings(
            DaemonSettings(inspection: true, relayPort: 8443, inspectedPorts: [443], quicDrop: quicDrop,
                           relayRunning: true, caFingerprint: fingerprint, upstreamMirror: upstreamMirror), at: beatAt)
        try store.recordHeartbeat(DaemonHeartbeat(at: beatAt, pid: 7, captureRunID: nil, input: "tun:tv0"))
    }

    @Test func sessionLifecycleDeclaresTheRecordingAndReadsInspectionFromTheRunningRelay() throws {
        let history = try ScratchHistory.seeded()
        let store = try history.open()
        try Self.relayRunning(in: store, quicDrop: true, upstreamMirror: true)
        let started = try TVCtlBinary.run(
            ["session", "start", "1", "--release", "2.5.0", "--build", "320", "--device", "iPhone 15", "--os", "iOS 18.1", "--ca-trusted", "user-full-trust", "--notes", "lab 2"],
            database: history.path)
        #expect(started.output == "Recording session 3, Acme Health 2.5.0 (320), on iPhone 15 with iOS 18.1; inspection on with CA SHA-256 \(Self.fingerprint), CA trusted in the user store with full trust on (iOS), UDP to port 443 dropped.\n", "\(started)")
        let session = try #require(try store.openRecording())
        #expect(session.kind == release("2.5.0", "320"))
        #expect(session.environment == AuditEnvironment(deviceModel: "iPhone 15", osVersion: "iOS 18.1", toolVersion: BuildStamp.version))
        // The relay's upstream_mirror, as the daemon published it, is the session's.
        #expect(session.inspection == InspectionConditions(
            mode: .pinning, caTrusted: true, caFingerprint: Self.fingerprint, quicDropped: true, upstreamMirror: true,
            caStore: .userFullTrust))
        #expect(session.notes == "lab 2")

        let again = try TVCtlBinary.run(["session", "start", "1", "--baseline", "--device", "x", "--os", "y"], database: history.path)
        #expect(again.status == 1)
        #expect(again.error == "tvctl: Session 3 is still recording: end it first with 'tvctl session end 3'.\n")

        let ended = try TVCtlBinary.run(["session", "end", "--json"], database: history.path)
        let shape = try #require(try JSONSerialization.jsonObject(with: Data(ended.output.utf8)) as? [String: Any])
        #expect(shape["id"] as? Int == 3)
        #expect(shape["isOpen"] as? Bool == false)
        #expect(shape["endedAt"] is String)
        #expect(try store.openRecording() == nil)

        let deleted = try TVCtlBinary.run(["session", "delete", "3", "-y"], database: history.path)
        #expect(deleted.output == "Deleted session 3, Acme Health 2.5.0 (320); its flows are kept, untagged.\n")
        #expect(try store.recording(id: 3) == nil)
    }

    @Test func inspectionModeIsAskedForAndRefusedWhenNothingCouldPresentIt() throws {
        let history = try ScratchHistory.seeded()
        let store = try history.open()
        let start = ["session", "start", "1", "--release", "2.5.0", "--build", "320", "--device", "Pixel 8", "--os", "Android 15"]
        let unknown = try TVCtlBinary.run(start + ["--inspection", "revoked"], database: history.path)
        #expect(unknown.status == 2)
        #expect(unknown.error == "tvctl: 'revoked' is not an inspection mode: write off, pinning, untrusted-issuer, wrong-name or expired.\n")
        // The trust declaration names a store: a bare yes says nothing of where the CA is.
        let noStore = try TVCtlBinary.run(start + ["--ca-trusted", "yes"], database: history.path)
        #expect(noStore.status == 2)
        #expect(noStore.error == "tvctl: 'yes' is not a CA store: write user, user-full-trust (an iOS profile with full trust on) or system.\n")
        let notInspecting = try TVCtlBinary.run(start + ["--inspection", "wrong-name"], database: history.path)
        #expect(notInspecting.status == 1)
        #expect(notInspecting.error == "tvctl: Nothing was started: a wrong-name recording needs the daemon's relay running with a CA loaded, "
            + "and none is; start it with inspection = on, or start with --inspection off.\n")
        #expect(try store.openRecording() == nil)

        let fingerprint = String(repeating: "5a", count: 32)
        try store.saveDaemonSettings(DaemonSettings(inspection: true, relayRunning: true, caFingerprint: fingerprint), at: Date())
        try store.recordHeartbeat(DaemonHeartbeat(at: Date(), pid: 1, captureRunID: nil, input: "tun:tv0"))
        let started = try TVCtlBinary.run(start + ["--inspection", "untrusted-issuer", "--json"], database: history.path)
        #expect(started.status == 0, "\(started)")
        let shape = try #require(try JSONSerialization.jsonObject(with: Data(started.output.utf8)) as? [String: Any])
        #expect((shape["inspection"] as? [String: Any])?["mode"] as? String == "untrusted-issuer")
        #expect(try store.openRecording()?.inspection
            == InspectionConditions(mode: .validation(.untrustedIssuer), caTrusted: false, caFingerprint: fingerprint))
        _ = try TVCtlBinary.run(["session", "end"], database: history.path)
        let off = try TVCtlBinary.run(start + ["--inspection", "off"], database: history.path)
        #expect(off.output.hasSuffix("inspection off, CA not trusted.\n"), "\(off)")
        #expect(try store.openRecording()?.inspection.mode == .off)
        _ = try TVCtlBinary.run(["session", "end"], database: history.path)
        let expired = try TVCtlBinary.run(start + ["--inspection", "expired", "--ca-trusted", "system"], database: history.path)
        #expect(expired.output.hasSuffix("inspection on, presenting expired certificates, CA SHA-256 \(fingerprint), CA trusted in the system store.\n"), "\(expired)")
    }

    @Test(arguments: [nil, "off", "yes", "on"] as [String?])
    func inspectionIsOffUnlessTheDaemonsRelayRunsWithACA(_ setting: String?) throws {
        let history = try ScratchHistory.seeded()
        // "on" alone, as the daemon published it before the relay existed: no relay, no CA.
        if let setting { try history.open().saveDaemonSettings(DaemonSettings(pairs: ["inspection": setting]), at: Date()) }
        let run = try TVCtlBinary.run(["session", "start", "1", "--baseline", "--device", "x", "--os", "y", "--json"], database: history.path)
        let shape = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let inspection = try #require(shape["inspection"] as? [String: Any])
        #expect(inspection["inspectionEnabled"] as? Bool == false)
        #expect(inspection["caSHA256"] == nil)
        #expect(inspection["quicDropped"] as? Bool == false)
        #expect(inspection["mode"] as? String == "off")
        #expect(shape["kind"] as? String == "baseline")
    }

    @Test func caTrustedIsRefusedWithoutARunningRelay() throws {
        let history = try ScratchHistory.seeded()
        let store = try history.open()
        // Configured on but not running: a heartbeat a minute old.
        try Self.relayRunning(in: store, beatAt: Date().addingTimeInterval(-60))
        let run = try TVCtlBinary.run(["session", "start", "1", "--baseline", "--device", "x", "--os", "y", "--ca-trusted", "user"], database: history.path)
        #expect(run.status == 1)
        #expect(run.error == "tvctl: Nothing was started: --ca-trusted names the CA the relay inspects with, and no running daemon has TLS inspection on with a CA loaded, so start it with inspection = on or leave --ca-trusted out.\n")
        #expect(try store.openRecording() == nil)

        let untrusted = try TVCtlBinary.run(["session", "start", "1", "--baseline", "--device", "x", "--os", "y"], database: history.path)
        #expect(untrusted.status == 0, "\(untrusted)")
        #expect(try store.openRecording()?.inspection == InspectionConditions(inspectionEnabled: false, caTrusted: false))
    }

    @Test func aSessionKeepsTheFingerprintOfTheCAItWasRecordedWith() throws {
        let history = try ScratchHistory.seeded()
        let store = try history.open()
        try Self.relayRunning(in: store)
        let run = try TVCtlBinary.run(["session", "start", "1", "--baseline", "--device", "x", "--os", "y", "--json"], database: history.path)
        let shape = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let inspection = try #require(shape["inspection"] as? [String: Any])
        #expect(inspection["inspectionEnabled"] as? Bool == true)
        #expect(inspection["caTrusted"] as? Bool == false)
        #expect(inspection["caSHA256"] as? String == Self.fingerprint)
        #expect(inspection["supportsPinningEvidence"] as? Bool == false)
    }

    @Test func fixtureTagsEachSessionWithItsShareThroughTheDaemonsPath() throws {
        let history = try ScratchHistory()
        let run = try TVCtlBinary.fixture(["--at", ScratchHistory.fixtureStart, "--json"], database: history.path)
        #expect(run.status == 0, "\(run)")
        let store = try history.open()
        let sessions = try store.recordings(forProject: 1)
        #expect(sessions.map(\.kind) == [release("2.4.1", "310"), .baseline])
        #expect(sessions.allSatisfy { !$0.isOpen })
        let captured = try store.captureRuns()
        #expect(captured.count == 1)
        let all = try store.reading { try $0.flows(inCaptureRun: captured[0].id) }
        #expect(all.count == 26)
        for session in sessions {
            let flows = try store.flows(inRecording: session.id, limit: .max)
            #expect(!flows.isEmpty)
            for flow in flows {
                #expect(flow.firstSeen >= session.startedAt && flow.firstSeen <= (session.endedAt ?? Instant(nanosecondsSinceEpoch: .max)),
                        "flow \(flow.id) falls inside session \(session.id)")
            }
        }
        #expect(try store.flowCount(inRecording: sessions[1].id) == 4)
        #expect(try store.flowCount(inRecording: sessions[0].id) == 10)
        #expect(try store.markers(forSession: sessions[0].id).map(\.kind).first == .consentGiven)
    }
}
