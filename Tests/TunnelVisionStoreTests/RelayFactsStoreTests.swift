import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionStore

/// The `flow_relay` columns: the relay's facts of a flow, in the same batch as the flow, and the CA
/// and the QUIC drop a session was recorded with.
@Suite struct RelayFactsStoreTests {
    static let facts = RelayFacts(
        decision: .terminated, event: .phoneClosedAfterHandshake, alert: nil, reason: nil, upstreamVerified: false,
        upstreamVerification: "unable to get local issuer certificate", upstreamApplicationProtocol: "h2",
        keyLog: ["CLIENT_HANDSHAKE_TRAFFIC_SECRET aa bb", "SERVER_HANDSHAKE_TRAFFIC_SECRET aa cc"],
        presented: .mirroredUntrustedIssuer, serverNameAsSent: "api.example.")

    @Test func theRelaysFactsAreWrittenWithTheirFlowAndReadBackBySession() throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        var draft = sessionDraft(project: project.id)
        // The mirror off is kept as such (false, not NULL): the session says which was in force.
        draft.inspection = InspectionConditions(
            mode: .pinning, caTrusted: true, caFingerprint: String(repeating: "0f", count: 32), quicDropped: true, keepsKeys: true,
            upstreamMirror: false)
        let session = try store.startRecording(draft, at: at(1))
        #expect(session.inspection == draft.inspection)
        #expect(session.inspection.keepsKeys)
        let capture = try store.beginCaptureRun(toolVersion: "test", input: "tun:tv0", at: at(1))
        let flow = FlowUpsert(handle: 7, rowID: nil, state: udpFlow(port: 5000, at: at(2)))
        let rows = try store.write(HistoryBatch(flows: [flow], relayFacts: [RelayFactsRecord(flow: 7, facts: Self.facts)]), captureRun: capture.id)
        let id = try #require(rows[7])
        #expect(try store.relayFacts(inRecording: session.id) == [id: Self.facts])

        // A later report of the same flow replaces the earlier one.
        var closed = Self.facts
        closed.event = .closed
        _ = try store.write(HistoryBatch(flows: [FlowUpsert(handle: 7, rowID: id, state: flow.state)],
                                         relayFacts: [RelayFactsRecord(flow: 7, facts: closed)]), captureRun: capture.id)
        #expect(try store.relayFacts(inRecording: session.id)[id]?.event == .closed)
    }

    /// TLS secrets let anyone who reads the history decrypt what the phone sent: stored only for
    /// a recording started with --keep-keys, never for one that did not ask, nor for an untagged flow.
    @Test(arguments: [false, true]) func theKeyLogIsStoredOnlyForARecordingThatKeepsKeys(keeps: Bool) throws {
        let store = try TemporaryDatabase().open()
        let capture = try store.beginCaptureRun(toolVersion: "test", input: "tun:tv0", at: at(1))
        // A flow before any recording: tagged with none.
        let untagged = FlowUpsert(handle: 6, rowID: nil, state: udpFlow(port: 4000, at: at(1)))
        let before = try #require(try store.write(
            HistoryBatch(flows: [untagged], relayFacts: [RelayFactsRecord(flow: 6, facts: Self.facts)]), captureRun: capture.id)[6])

        let project = try store.createAuditProject(projectDraft(), at: at(0))
        var draft = sessionDraft(project: project.id)
        draft.inspection = InspectionConditions(
            inspectionEnabled: true, caTrusted: true, caFingerprint: String(repeating: "0f", count: 32), keepsKeys: keeps)
        let session = try store.startRecording(draft, at: at(1))
        #expect(try store.reading { try $0.recording(id: session.id) }?.inspection.keepsKeys == keeps)
        let flow = FlowUpsert(handle: 7, rowID: nil, state: udpFlow(port: 5000, at: at(2)))
        let id = try #require(try store.write(
            HistoryBatch(flows: [flow], relayFacts: [RelayFactsRecord(flow: 7, facts: Self.facts)]), captureRun: capture.id)[7])

        var withoutKeys = Self.facts
        withoutKeys.keyLog = []
        #expect(try store.relayFacts(inRecording: session.id) == [id: keeps ? Self.facts : withoutKeys])
        let stored = try store.reading { snapshot in
            try snapshot.db.statement("SELECT flow_id, key_log FROM flow_relay ORDER BY flow_id").rows { ($0.int64(0), $0.text(1)) }
        }
        #expect(stored.map(\.0) == [before, id])
        #expect(stored[0].1 == "")
        #expect(stored[1].1 == (keeps ? "CLIENT_HANDSHAKE_TRAFFIC_SECRET aa bb\nSERVER_HANDSHAKE_TRAFFIC_SECRET aa cc\n" : ""))
    }

    @Test func factsOfAFlowNotInTheBatchAreRefused() throws {
        let store = try TemporaryDatabase().open()
        let capture = try store.beginCaptureRun(toolVersion: "test", input: "tun:tv0", at: at(1))
        #expect(throws: History.BatchError.self) {
            try store.write(HistoryBatch(relayFacts: [RelayFactsRecord(flow: 9, facts: Self.facts)]), captureRun: capture.id)
        }
    }
}
