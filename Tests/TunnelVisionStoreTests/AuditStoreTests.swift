import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionStore

@Suite struct ProjectTests {
    @Test func createdProjectKeepsItsAllowlistInWrittenOrder() throws {
        let db = TemporaryDatabase()
        let store = try db.open()
        var draft = projectDraft(allow: ["*.acme.de", "api.acme.de", "crash.example.org"])
        draft.allowlist[1] = AllowlistEntry(pattern: pattern("api.acme.de"), note: "backend")
        let project = try store.createAuditProject(draft, at: at(0))
        let read = try #require(try store.auditProject(id: project.id))
        #expect(read == project)
        #expect(read.allowlist.map(\.pattern.text) == ["*.acme.de", "api.acme.de", "crash.example.org"])
        #expect(read.allowlist[1].note == "backend")
        #expect(read.createdAt.nanosecondsSinceEpoch == at(0).nanosecondsSinceEpoch)
    }

    @Test func projectsAreListedNewestFirst() throws {
        let store = try TemporaryDatabase().open()
        let first = try store.createAuditProject(projectDraft("First"), at: at(0))
        let second = try store.createAuditProject(projectDraft("Second"), at: at(10))
        #expect(try store.auditProjects().map(\.id) == [second.id, first.id])
    }

    @Test func emptyNameIsRefused() throws {
        let store = try TemporaryDatabase().open()
        #expect(throws: AuditStoreError.emptyProjectName) { try store.createAuditProject(projectDraft("  \n"), at: at(0)) }
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        #expect(throws: AuditStoreError.emptyProjectName) { try store.updateAuditProject(id: project.id, with: projectDraft("")) }
    }

    @Test func repeatedPatternIsRefusedOnceNormalised() throws {
        let store = try TemporaryDatabase().open()
        #expect(throws: AuditStoreError.duplicateAllowlistPattern("api.acme.de")) {
            try store.createAuditProject(projectDraft(allow: ["api.acme.de", "API.acme.de."]), at: at(0))
        }
        #expect(try store.auditProjects().isEmpty)
    }

    @Test func updateReplacesTheWholeAllowlist() throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(allow: ["a.de", "b.de"]), at: at(0))
        let updated = try store.updateAuditProject(id: project.id, with: projectDraft("Renamed", allow: ["c.de", "a.de"]))
        #expect(updated.name == "Renamed")
        #expect(updated.allowlist.map(\.pattern.text) == ["c.de", "a.de"])
        #expect(updated.createdAt == project.createdAt)
        #expect(try store.auditProject(id: project.id) == updated)
    }

    @Test func updatingOrDeletingAMissingProjectNamesIt() throws {
        let store = try TemporaryDatabase().open()
        #expect(throws: AuditStoreError.projectNotFound(42)) { try store.updateAuditProject(id: 42, with: projectDraft()) }
        #expect(throws: AuditStoreError.projectNotFound(42)) { try store.deleteAuditProject(id: 42) }
        #expect(throws: AuditStoreError.projectNotFound(42)) { try store.startRecording(sessionDraft(project: 42), at: at(0)) }
        #expect(try store.auditProject(id: 42) == nil)
    }
}

@Suite struct SessionTests {
    @Test func startedSessionReadsBackWithEverythingItDeclared() throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        let session = try store.startRecording(sessionDraft(project: project.id), at: at(1))
        #expect(session.isOpen)
        #expect(session.kind.release == AppRelease(version: "2.4.1", build: "310"))
        #expect(try store.recording(id: session.id) == session)
        #expect(try store.openRecording() == session)
        #expect(session.environment.deviceModel == "Pixel 8")
        #expect(session.inspection == InspectionConditions(inspectionEnabled: true, caTrusted: false))
        #expect(session.notes == "lab 2")
    }

    @Test func baselineHasNoRelease() throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        let session = try store.startRecording(sessionDraft(project: project.id, kind: .baseline), at: at(1))
        #expect(try store.recording(id: session.id)?.kind == .baseline)
        #expect(session.kind.release == nil)
    }

    @Test func startRefusesWhileOneIsOpenAndNamesIt() throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        let open = try store.startRecording(sessionDraft(project: project.id), at: at(1))
        #expect(throws: AuditStoreError.sessionAlreadyOpen(open.id)) {
            try store.startRecording(sessionDraft(project: project.id, kind: .baseline), at: at(2))
        }
        _ = try store.endRecording(id: open.id, at: at(3))
        let next = try store.startRecording(sessionDraft(project: project.id), at: at(4))
        #expect(next.id != open.id)
    }

    @Test func theIndexAloneRefusesASecondOpenSession() throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        _ = try store.startRecording(sessionDraft(project: project.id), at: at(1))
        // Bypasses the code check: the partial unique index is what holds across writers.
        #expect(throws: HistoryError.self) {
            try store.write { db in
                try db.execute("""
                    INSERT INTO audit_sessions (project_id, kind, device_model, os_version, tool_version,
                        inspection_enabled, ca_trusted, started_at) VALUES (\(project.id), 0, 'x', 'y', 'z', 0, 0, 5)
                    """)
            }
        }
    }

    @Test func aRowThisVersionCannotReadIsAnErrorNamingItNeverLeftOut() throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        let session = try store.startRecording(sessionDraft(project: project.id), at: at(1))
        try store.write { db in
            try db.execute("INSERT INTO audit_allowlist (project_id, position, pattern) VALUES (\(project.id), 9, 'a..b')")
        }
        let allowlistID = try store.access { db in try db.statement("SELECT id FROM audit_allowlist WHERE pattern = 'a..b'").firstRow { $0.int64(0) } }
        #expect(throws: HistoryError.unreadableRow(
            table: "audit_allowlist", id: try #require(allowlistID), reason: "the pattern \"a..b\" no longer parses")) {
            try store.auditProject(id: project.id)
        }
        try store.write { db in try db.execute("UPDATE audit_sessions SET kind = 7 WHERE id = \(session.id)") }
        #expect(throws: HistoryError.unreadableRow(table: "audit_sessions", id: session.id, reason: "unknown kind 7")) {
            try store.recording(id: session.id)
        }
    }

    @Test func aSessionKeepsTheGatewayResolversItStartedWith() throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        var draft = sessionDraft(project: project.id)
        draft.gatewayResolvers = [IPAddress("10.77.0.1")!, IPAddress("fd77::1")!]
        let session = try store.startRecording(draft, at: at(1))
        #expect(try store.recording(id: session.id)?.gatewayResolvers == draft.gatewayResolvers)
        try store.write { db in try db.execute("UPDATE audit_sessions SET gateway_resolvers = '10.77.0.1,nope' WHERE id = \(session.id)") }
        #expect(throws: HistoryError.unreadableRow(
            table: "audit_sessions", id: session.id, reason: "gateway resolvers \"10.77.0.1,nope\" are not addresses")) {
            try store.recording(id: session.id)
        }
    }

    @Test func packetsWithoutARowAreCountedPerMinuteAndReadForASpan() throws {
        let store = try TemporaryDatabase().open()
        let capture = try store.beginCaptureRun(toolVersion: "t", input: "tun:tv0", at: at(0))
        // `instant` is 20 s into a minute: minutes start at at(40), at(100), at(160).
        try store.recordPacketLoss(3, reason: .queueFull, captureRun: capture.id, at: at(41))
        try store.recordPacketLoss(4, reason: .queueFull, captureRun: capture.id, at: at(95))
        try store.recordPacketLoss(5, reason: .batchFailed, captureRun: capture.id, at: at(70))
        try store.recordPacketLoss(0, reason: .batchFailed, captureRun: capture.id, at: at(80))
        try store.recordPacketLoss(6, reason: .batchFailed, captureRun: capture.id, at: at(200))
        let rows = try store.access { db in try db.statement("SELECT COUNT(*) FROM packet_losses").firstRow { $0.int64(0) } }
        #expect(rows == 3, "one row per capture session, minute and reason")
        #expect(try store.packetLosses(from: Instant(at(60)), to: Instant(at(99))) == [.queueFull: 7, .batchFailed: 5])
        #expect(try store.packetLosses(from: Instant(at(130)), to: Instant(at(150))) == [:])
        #expect(try store.packetLosses(from: Instant(at(0)), to: Instant(at(300))) == [.queueFull: 7, .batchFailed: 11])
    }

    // Libpcap's totals, kept per capture session; an input without them has none.
    @Test func thePassiveTapsDropsAreKeptPerCaptureSessionAndOnlyForIt() throws {
        let store = try TemporaryDatabase().open()
        let inline = try store.beginCaptureRun(toolVersion: "t", input: "tun:tv0", at: at(0))
        let passive = try store.beginCaptureRun(toolVersion: "t", input: "interface:wg0", at: at(5))
        try store.recordTapDrops(PassiveTapDrops(kernel: 3, interface: 0), captureRun: passive.id)
        try store.recordTapDrops(PassiveTapDrops(kernel: 4_672, interface: 2), captureRun: passive.id)
        let sessions = try store.reading { try $0.captureRuns() }
        #expect(sessions.map(\.tapDrops) == [nil, PassiveTapDrops(kernel: 4_672, interface: 2)])
        #expect(sessions.first?.id == inline.id)
    }

    @Test func endRules() throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        let session = try store.startRecording(sessionDraft(project: project.id), at: at(10))
        #expect(throws: AuditStoreError.dateBeforeSessionStart) { try store.endRecording(id: session.id, at: at(9)) }
        #expect(throws: AuditStoreError.sessionNotFound(999)) { try store.endRecording(id: 999, at: at(11)) }
        let ended = try store.endRecording(id: session.id, at: at(10))
        #expect(!ended.isOpen)
        #expect(ended.endedAt?.nanosecondsSinceEpoch == at(10).nanosecondsSinceEpoch)
        #expect(throws: AuditStoreError.sessionAlreadyEnded(session.id)) { try store.endRecording(id: session.id, at: at(12)) }
        #expect(try store.openRecording() == nil)
    }

    @Test func sessionsOfAProjectNewestFirst() throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        let other = try store.createAuditProject(projectDraft("Other"), at: at(0))
        var ids: [Int64] = []
        for start in [10.0, 20.0, 30.0] {
            let session = try store.startRecording(sessionDraft(project: project.id), at: at(start))
            _ = try store.endRecording(id: session.id, at: at(start + 1))
            ids.append(session.id)
        }
        #expect(try store.recordings(forProject: project.id).map(\.id) == ids.reversed())
        #expect(try store.recordings(forProject: other.id).isEmpty)
    }

    @Test func deletingAMissingSessionNamesIt() throws {
        let store = try TemporaryDatabase().open()
        #expect(throws: AuditStoreError.sessionNotFound(7)) { try store.deleteRecording(id: 7) }
    }
}

@Suite struct MarkerTests {
    @Test func markersGoIntoTheOpenSessionAsTheyHappened() throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        let session = try store.startRecording(sessionDraft(project: project.id), at: at(1))
        let login = try store.addMarker(.loggedIn, toSession: session.id, at: at(5))
        let consent = try store.addMarker(.consentGiven, toSession: session.id, at: at(3))
        let custom = try store.addMarker(.custom("  opened settings "), toSession: session.id, at: at(7))
        let logout = try store.addMarker(.loggedOut, toSession: session.id, at: at(8))
        #expect(custom.kind == .custom("opened settings"))
        #expect(try store.markers(forSession: session.id).map(\.id) == [consent.id, login.id, custom.id, logout.id])
        #expect(try store.markers(forSession: session.id).map(\.kind) == [.consentGiven, .loggedIn, .custom("opened settings"), .loggedOut])
    }

    @Test func markerRefusals() throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        let session = try store.startRecording(sessionDraft(project: project.id), at: at(10))
        #expect(throws: AuditStoreError.emptyMarkerLabel) { try store.addMarker(.custom(" "), toSession: session.id, at: at(11)) }
        #expect(throws: AuditStoreError.dateBeforeSessionStart) { try store.addMarker(.loggedIn, toSession: session.id, at: at(9)) }
        #expect(throws: AuditStoreError.sessionNotFound(99)) { try store.addMarker(.loggedIn, toSession: 99, at: at(11)) }
        _ = try store.endRecording(id: session.id, at: at(12))
        #expect(throws: AuditStoreError.sessionAlreadyEnded(session.id)) { try store.addMarker(.loggedIn, toSession: session.id, at: at(13)) }
        #expect(try store.markers(forSession: session.id).isEmpty)
    }

    @Test func markingWithoutAnOpenSessionIsAnOutcome() throws {
        let store = try TemporaryDatabase().open()
        #expect(try store.addMarkerToOpenSession(.consentGiven, at: at(0)) == .noOpenSession)
        #expect(try store.auditRecording() == nil)
    }

    @Test func markingTheOpenSessionNamesTheRecording() throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft("Acme Health"), at: at(0))
        let session = try store.startRecording(sessionDraft(project: project.id), at: at(1))
        let outcome = try store.addMarkerToOpenSession(.consentGiven, at: at(2))
        guard case .placed(let marker, let recording) = outcome else {
            Issue.record("expected a placed marker, got \(outcome)")
            return
        }
        #expect(recording == RecordingWithProject(session: session, projectName: "Acme Health"))
        #expect(try store.auditRecording() == recording)
        #expect(try store.markers(forSession: session.id) == [marker])
        #expect(throws: AuditStoreError.emptyMarkerLabel) { try store.addMarkerToOpenSession(.custom(""), at: at(3)) }
    }
}
