import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionStore

/// Certificate validation runs on disk: a recording's inspection mode, its own CA's fingerprint, and the relay's
/// record of a flow.
@Suite("Inspection modes and relay records in the history")
struct InspectionModeStoreTests {
    @Test("Every mode reads back as it was started", arguments: InspectionMode.allCases)
    func modeRoundTrips(_ mode: InspectionMode) throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        var draft = sessionDraft(project: project.id)
        draft.inspection = InspectionConditions(mode: mode, caTrusted: true)
        let session = try store.startRecording(draft, at: at(1))
        let read = try #require(try store.recording(id: session.id))
        #expect(read.inspection.mode == mode)
        #expect(read.inspection.inspectionEnabled == mode.inspects)
        #expect(read.validationIssuerFingerprint == nil)
    }

    @Test("A session written before modes existed reads its mode from inspection_enabled; an unknown mode is unreadable")
    func rowsWithoutOrWithAnUnknownMode() throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        let session = try store.startRecording(sessionDraft(project: project.id), at: at(1))
        try store.access { try $0.execute("UPDATE audit_sessions SET inspection_mode = NULL") }
        #expect(try store.recording(id: session.id)?.inspection.mode == .pinning)
        try store.access { try $0.execute("UPDATE audit_sessions SET inspection_mode = NULL, inspection_enabled = 0") }
        #expect(try store.recording(id: session.id)?.inspection.mode == .off)
        try store.access { try $0.execute("UPDATE audit_sessions SET inspection_mode = 99") }
        // Reads never drop rows: the row is named, not left out.
        #expect(throws: HistoryError.unreadableRow(table: "audit_sessions", id: session.id, reason: "unknown inspection mode 99")) {
            try store.recording(id: session.id)
        }
    }

    @Test("The first fingerprint of the recording's own CA stays")
    func validationIssuerIsRecordedOnce() throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        var draft = sessionDraft(project: project.id)
        draft.inspection = InspectionConditions(mode: .validation(.untrustedIssuer), caTrusted: false)
        let session = try store.startRecording(draft, at: at(1))
        try store.recordValidationIssuer(sessionID: session.id, fingerprint: String(repeating: "ab", count: 32))
        try store.recordValidationIssuer(sessionID: session.id, fingerprint: String(repeating: "cd", count: 32))
        #expect(try store.recording(id: session.id)?.validationIssuerFingerprint == String(repeating: "ab", count: 32))
    }

    struct FactsRow: Sendable, CustomTestStringConvertible {
        let decision: String
        var event: String? = nil
        var alert: UInt8? = nil
        var presented: String? = nil
        let expected: RelayVerdict?
        var testDescription: String { "\(decision) \(event ?? "-") \(alert.map(String.init) ?? "-")" }
    }

    static let facts: [FactsRow] = [
        FactsRow(decision: "terminated", alert: 48, expected: .refused(alert: 48)),
        FactsRow(decision: "terminated", event: "closed", alert: 42, expected: .refused(alert: 42)),
        FactsRow(decision: "terminated", event: "closed", expected: nil),
        FactsRow(decision: "terminated", event: "phoneClosedAfterHandshake", expected: .closedAfterHandshake),
        FactsRow(decision: "terminated", event: "phoneClosingAlertDuringHandshake", alert: 0, expected: .closedDuringHandshake),
        FactsRow(decision: "terminated", event: "upstreamUnreachable", expected: .relayFailed),
        // The relay's own alert is its failure, never the phone's refusal.
        FactsRow(decision: "terminated", event: "relaySentAlert", alert: 50, expected: .relayFailed),
        FactsRow(decision: "terminated", event: "phoneRefusedMirroredCertificate", alert: 48,
                 expected: .refusedMirroredCertificate(alert: 48)),
        FactsRow(decision: "terminated", event: "closed", presented: "mirroredUntrustedIssuer", expected: .presentedMirror),
        FactsRow(decision: "terminated", event: "closed", presented: "installedAuthority", expected: nil),
        FactsRow(decision: "spliced.hostRemembered", expected: .spliced(.hostRemembered)),
        FactsRow(decision: "spliced.noServerName", expected: .spliced(.noServerName)),
        FactsRow(decision: "spliced.somethingNew", expected: nil),
        FactsRow(decision: "terminated", event: "somethingNew", alert: 48, expected: nil),
        FactsRow(decision: "undecided", expected: nil),
    ]

    @Test("The relay's facts in flow_relay are read with the flow as its record", arguments: facts)
    func relayFactsAreTheFlowsRecord(_ row: FactsRow) throws {
        let store = try TemporaryDatabase().open()
        let capture = try store.beginCaptureRun(toolVersion: "t", input: "i", at: at(0))
        let state = udpFlow(port: 443, at: at(1))
        let rows = try store.write(HistoryBatch(flows: [FlowUpsert(handle: 1, rowID: nil, state: state)]), captureRun: capture.id)
        let id = try #require(rows[1])
        // Written as words, so that words this version does not know can be written too.
        try store.access { db in
            try db.statement("INSERT INTO flow_relay (flow_id, decision, event, alert, presented) VALUES (?, ?, ?, ?, ?)")
                .bind(.integer(id), .text(row.decision), .optionalText(row.event), .optionalInteger(row.alert.map(Int64.init)),
                      .optionalText(row.presented))
                .run()
        }
        #expect(try store.flow(id: id)?.relay == row.expected)
        // What the relay facts say of themselves, read through the same names.
        let known = RelayDecisionKind(name: row.decision) != nil && row.event.map { RelayEventKind(name: $0) != nil } != false
        #expect(try store.reading { try $0.db.statement(
            "SELECT \(RelayFactsColumns.selectColumns) FROM flow_relay r").rows(RelayFactsColumns.read) }.first??.facts.verdict
            == (known ? row.expected : nil))
    }

    @Test("A flow the relay never saw has no record")
    func noFactsNoRecord() throws {
        let store = try TemporaryDatabase().open()
        let capture = try store.beginCaptureRun(toolVersion: "t", input: "i", at: at(0))
        let id = try store.insert([udpFlow(port: 443, at: at(1))], captureRun: capture.id)[0]
        #expect(try store.flow(id: id)?.relay == nil)
    }
}
