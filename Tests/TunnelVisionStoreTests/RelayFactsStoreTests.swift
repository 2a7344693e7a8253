import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionStore

/// The issue 12 columns: the relay's facts of a flow, in the same batch as the flow, and the CA
/// and the QUIC drop a session was recorded with.
@Suite struct RelayFactsStoreTests {
    static let facts = RelayFlowFacts(
        decision: "terminated", event: "phoneClosedAfterHandshake", alert: nil, reason: nil, upstreamVerified: false,
        upstreamVerification: "unable to get local issuer certificate", upstreamApplicationProtocol: "h2",
        keyLog: ["CLIENT_HANDSHAKE_TRAFFIC_SECRET aa bb", "SERVER_HANDSHAKE_TRAFFIC_SECRET aa cc"],
        presented: "mirroredUntrustedIssuer", serverNameAsSent: "api.example.")

    @Test func theRelaysFactsAreWrittenWithTheirFlowAndReadBackBySession() throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        var draft = sessionDraft(project: project.id)
        // The mirror off is kept as such (false, not NULL): the session says which was in force.
        draft.inspection = InspectionConditions(
            mode: .pinning, caTrusted: true, caFingerprint: String(repeating: "0f", count: 32), quicDropped: true, upstreamMirror: false)
        let session = try store.startAuditSession(draft, at: at(1))
        #expect(session.inspection == draft.inspection)
        let capture = try store.beginCaptureSession(toolVersion: "test", input: "tun:tv0", at: at(1))
        let flow = FlowUpsert(handle: 7, rowID: nil, state: udpFlow(port: 5000, at: at(2)))
        let rows = try store.write(HistoryBatch(flows: [flow], relayFacts: [RelayFactsRecord(flow: 7, facts: Self.facts)]), captureSession: capture.id)
        let id = try #require(rows[7])
        #expect(try store.relayFacts(inAuditSession: session.id) == [id: Self.facts])

        // A later report of the same flow replaces the earlier one.
        var closed = Self.facts
        closed.event = "closed"
        _ = try store.write(HistoryBatch(flows: [FlowUpsert(handle: 7, rowID: id, state: flow.state)],
                                         relayFacts: [RelayFactsRecord(flow: 7, facts: closed)]), captureSession: capture.id)
        #expect(try store.relayFacts(inAuditSession: session.id)[id]?.event == "closed")
    }

    @Test func factsOfAFlowNotInTheBatchAreRefused() throws {
        let store = try TemporaryDatabase().open()
        let capture = try store.beginCaptureSession(toolVersion: "test", input: "tun:tv0", at: at(1))
        #expect(throws: FlowStore.BatchError.self) {
            try store.write(HistoryBatch(relayFacts: [RelayFactsRecord(flow: 9, facts: Self.facts)]), captureSession: capture.id)
        }
    }
}
