import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionStore

/// The `flow_request` table: the requests the relay read inside a flow, written with its relay
/// facts in the one commit path and read back on the flow wherever the history builds flows.
@Suite struct RequestStoreTests {
    static let requests = [
        ReadRequest(
            instant: Instant(nanosecondsSinceEpoch: 1_790_000_002_125_000_000), version: .http2, method: "POST",
            authority: "api.example", path: "/v1/upload?user=42", bodyBytes: 48_000, responseStatus: 201, stream: 1),
        ReadRequest(
            instant: Instant(nanosecondsSinceEpoch: 1_790_000_002_500_000_000), version: .http2, method: "GET",
            authority: "cdn.example", path: "/logo.png", bodyBytes: 0, responseStatus: nil, stream: 3),
    ]

    static func facts(_ requests: [ReadRequest], notKept: Int = 0) -> RelayFacts {
        var facts = RelayFacts(decision: .terminated, event: .closed)
        facts.requests = requests
        facts.requestsNotKept = notKept
        return facts
    }

    func recording(_ store: History, keepsPaths: Bool) throws -> Int64 {
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        var draft = sessionDraft(project: project.id)
        draft.inspection = InspectionConditions(
            mode: .pinning, caTrusted: false, caFingerprint: String(repeating: "0f", count: 32), keepsRequestPaths: keepsPaths)
        return try store.startRecording(draft, at: at(1)).id
    }

    @Test func theStepAddsATableOfRequestsPerFlowThatGoesWithItsFlow() throws {
        let store = try TemporaryDatabase().open()
        let columns = try store.access { db in
            try db.statement("SELECT name FROM pragma_table_info('flow_request')").rows { $0.text(0) }
        }
        #expect(columns == ["flow_id", "position", "instant", "version", "method", "authority", "path", "body_bytes", "status", "stream"])
        let keys = try store.access { db in
            try db.statement("SELECT \"table\", on_delete FROM pragma_foreign_key_list('flow_request')").rows { "\($0.text(0)) \($0.text(1))" }
        }
        #expect(keys == ["flows CASCADE"])
        #expect(try store.access { db in try db.statement("PRAGMA user_version").firstRow { $0.int64(0) } } == Int64(Schema.version))
    }

    /// Paths can carry personal data: stored only for a recording started to keep them.
    @Test(arguments: [false, true]) func requestsAreReadBackOnTheirFlowInOrderWithPathsOnlyWhenKept(keeps: Bool) throws {
        let store = try TemporaryDatabase().open()
        let session = try recording(store, keepsPaths: keeps)
        #expect(try store.reading { try $0.recording(id: session) }?.inspection.keepsRequestPaths == keeps)
        let capture = try store.beginCaptureRun(toolVersion: "test", input: "tun:tv0", at: at(1))
        let flow = FlowUpsert(handle: 7, rowID: nil, state: udpFlow(port: 5000, at: at(2)))
        let id = try #require(try store.write(
            HistoryBatch(flows: [flow], relayFacts: [RelayFactsRecord(flow: 7, facts: Self.facts(Self.requests, notKept: 3))]),
            captureRun: capture.id)[7])

        let expected = Self.requests.map { request in
            ReadRequest(
                instant: request.instant, version: request.version, method: request.method, authority: request.authority,
                path: keeps ? request.path : nil, bodyBytes: request.bodyBytes, responseStatus: request.responseStatus,
                stream: request.stream)
        }
        // Every read of flows builds them the same way.
        let read = try #require(try store.flows(inRecording: session).first)
        #expect(read.id == id)
        #expect(read.requests == expected)
        #expect(read.requestsNotKept == 3)
        #expect(try store.flow(id: id)?.requests == expected)
        #expect(try store.newestFlows(inRecording: session, limit: 1).first?.requests == expected)
        #expect(try store.reading { try $0.flowsChanged(inRecording: session, after: FlowChangeMarker(value: 0)) }.flows.first?.requests == expected)
        // The instant is stored as nanoseconds since the epoch.
        let instants = try store.access { db in try db.statement("SELECT instant FROM flow_request ORDER BY position").rows { $0.int64(0) } }
        #expect(instants == [1_790_000_002_125_000_000, 1_790_000_002_500_000_000])
    }

    /// The relay's first report of a connection (its outcome) carries no requests; its final one
    /// does. An empty report must not wipe them, a later one with requests replaces them.
    @Test func aReportWithoutRequestsLeavesTheFlowsRequestsAndALaterOneReplacesThem() throws {
        let store = try TemporaryDatabase().open()
        let session = try recording(store, keepsPaths: false)
        let capture = try store.beginCaptureRun(toolVersion: "test", input: "tun:tv0", at: at(1))
        let flow = FlowUpsert(handle: 7, rowID: nil, state: udpFlow(port: 5000, at: at(2)))
        let id = try #require(try store.write(
            HistoryBatch(flows: [flow], relayFacts: [RelayFactsRecord(flow: 7, facts: Self.facts(Self.requests))]), captureRun: capture.id)[7])
        let again = FlowUpsert(handle: 7, rowID: id, state: flow.state)
        _ = try store.write(HistoryBatch(flows: [again], relayFacts: [RelayFactsRecord(flow: 7, facts: Self.facts([]))]), captureRun: capture.id)
        #expect(try store.flow(id: id)?.requests.map(\.method) == ["POST", "GET"])
        _ = try store.write(
            HistoryBatch(flows: [again], relayFacts: [RelayFactsRecord(flow: 7, facts: Self.facts([Self.requests[1]]))]), captureRun: capture.id)
        #expect(try store.flow(id: id)?.requests.map(\.method) == ["GET"])
        #expect(try store.flows(inRecording: session).count == 1)
    }

    @Test func aFlowWithoutRequestsHasNone() throws {
        let store = try TemporaryDatabase().open()
        let capture = try store.beginCaptureRun(toolVersion: "test", input: "tun:tv0", at: at(1))
        let id = try store.insert([udpFlow(port: 5000, at: at(2))], captureRun: capture.id)[0]
        let flow = try #require(try store.flow(id: id))
        #expect(flow.requests.isEmpty)
        #expect(flow.requestsNotKept == 0)
    }
}
