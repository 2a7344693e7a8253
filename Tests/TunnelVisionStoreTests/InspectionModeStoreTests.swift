import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionStore

/// Issue 13 on disk: a recording's inspection mode, its own CA's fingerprint, and the relay's
/// record of a flow.
@Suite("Inspection modes and relay records in the history")
struct InspectionModeStoreTests {
    @Test("Every mode reads back as it was started", arguments: InspectionMode.allCases)
    func modeRoundTrips(_ mode: InspectionMode) throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        var draft = sessionDraft(project: project.id)
        draft.inspection = InspectionConditions(mode: mode, caTrusted: true)
        let session = try store.startAuditSession(draft, at: at(1))
        let read = try #require(try store.auditSession(id: session.id))
        #expect(read.inspection.mode == mode)
        #expect(read.inspection.inspectionEnabled == mode.inspects)
        #expect(read.validationIssuerFingerprint == nil)
    }

    @Test("A session written before modes existed reads its mode from inspection_enabled; an unknown mode is unreadable")
    func rowsWithoutOrWithAnUnknownMode() throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        let session = try store.startAuditSession(sessionDraft(project: project.id), at: at(1))
        try store.access { try $0.execute("UPDATE audit_sessions SET inspection_mode = NULL") }
        #expect(try store.auditSession(id: session.id)?.inspection.mode == .pinning)
        try store.access { try $0.execute("UPDATE audit_sessions SET inspection_mode = NULL, inspection_enabled = 0") }
        #expect(try store.auditSession(id: session.id)?.inspection.mode == .off)
        try store.access { try $0.execute("UPDATE audit_sessions SET inspection_mode = 99") }
        #expect(try store.auditSession(id: session.id) == nil)
    }

    @Test("The first fingerprint of the recording's own CA stays")
    func validationIssuerIsRecordedOnce() throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        var draft = sessionDraft(project: project.id)
        draft.inspection = InspectionConditions(mode: .validation(.untrustedIssuer), caTrusted: false)
        let session = try store.startAuditSession(draft, at: at(1))
        try store.recordValidationIssuer(sessionID: session.id, fingerprint: String(repeating: "ab", count: 32))
        try store.recordValidationIssuer(sessionID: session.id, fingerprint: String(repeating: "cd", count: 32))
        #expect(try store.auditSession(id: session.id)?.validationIssuerFingerprint == String(repeating: "ab", count: 32))
    }

    static let records: [RelayRecord] = [.refused(alert: 48), .closedAfterHandshake, .closedDuringHandshake, .relayFailed]
        + RelaySpliceReason.allCases.map(RelayRecord.spliced)

    @Test("Every relay record survives the round trip, and a later flush without one erases nothing", arguments: records)
    func relayRecordRoundTrips(_ record: RelayRecord) throws {
        let store = try TemporaryDatabase().open()
        let capture = try store.beginCaptureSession(toolVersion: "t", input: "i", at: at(0))
        var state = udpFlow(port: 443, at: at(1))
        state.relay = record
        let id = try store.insert([state], captureSession: capture.id)[0]
        #expect(try store.flow(id: id)?.relay == record)
        state.relay = nil
        try store.write(HistoryBatch(flows: [FlowUpsert(handle: 0, rowID: id, state: state)]), captureSession: capture.id)
        #expect(try store.flow(id: id)?.relay == record)
    }

    @Test("A stored record this version cannot read is no record: unknown name, a refusal without its alert or out of range")
    func unreadableRecords() throws {
        let store = try TemporaryDatabase().open()
        let capture = try store.beginCaptureSession(toolVersion: "t", input: "i", at: at(0))
        var state = udpFlow(port: 443, at: at(1))
        state.relay = .refused(alert: 48)
        let id = try store.insert([state], captureSession: capture.id)[0]
        for (name, alert) in [("spliced.somethingNew", "NULL"), ("refused", "NULL"), ("refused", "300"), ("refused", "-1")] {
            try store.access { try $0.execute("UPDATE flows SET relay_record = '\(name)', relay_alert = \(alert) WHERE id = \(id)") }
            #expect(try store.flow(id: id)?.relay == nil, "\(name) \(alert)")
        }
    }
}
