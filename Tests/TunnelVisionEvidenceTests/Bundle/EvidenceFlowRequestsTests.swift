import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionEvidence

/// flows.json's `requests`: the requests the relay read inside a flow, in one shape for the
/// bundle and `tvctl flows --json`, and absent for a flow with none (so documents without
/// requests stay byte for byte as they were).
struct EvidenceFlowRequestsTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Golden").appendingPathComponent("flows-with-requests.json")

    static func flow(requests: [ReadRequest], notKept: Int = 0) -> StoredFlow {
        let phone = Endpoint(address: IPAddress("10.77.0.2")!, port: 40_000)
        let server = Endpoint(address: IPAddress("198.51.100.30")!, port: 443)
        var state = FlowState(
            key: FlowKey(proto: .tcp, phone, server), firstSeen: Instant(nanosecondsSinceEpoch: 1_790_000_000_000_000_000),
            lastSeen: Instant(nanosecondsSinceEpoch: 1_790_000_004_000_000_000), bytesOut: 52_000, bytesIn: 3_100, packetCount: 61,
            tlsStatus: .inspected, sni: "api.example")
        state.tcpPayload = .carried
        return StoredFlow(id: 12, state: state, requests: requests, requestsNotKept: notKept)
    }

    static let requests = [
        ReadRequest(
            instant: Instant(nanosecondsSinceEpoch: 1_790_000_001_250_000_000), version: .http2, method: "POST",
            authority: "api.example", path: nil, bodyBytes: 48_000, responseStatus: 201, stream: 1),
        // Coalesced: another name over the same connection.
        ReadRequest(
            instant: Instant(nanosecondsSinceEpoch: 1_790_000_001_500_000_000), version: .http2, method: "GET",
            authority: "cdn.example", path: "/logo.png", bodyBytes: 0, responseStatus: nil, stream: 3),
    ]

    @Test func aFlowDocumentWithRequestsIsWrittenAsTheGoldenFileSays() throws {
        let document = EvidenceFlowsDocument(sessionID: 3, flows: [EvidenceFlow(Self.flow(requests: Self.requests, notKept: 2), findingIDs: [])])
        let written = String(decoding: try EvidenceJSON.encode(document), as: UTF8.self)
        if ProcessInfo.processInfo.environment["EVIDENCE_RECORD_GOLDEN"] != nil {
            try written.write(to: Self.golden, atomically: true, encoding: .utf8)
        }
        #expect(written == (try String(contentsOf: Self.golden, encoding: .utf8)))
    }

    @Test func aFlowWithoutRequestsHasNoRequestsKey() throws {
        let written = String(decoding: try EvidenceJSON.encode(EvidenceFlow(Self.flow(requests: []), findingIDs: nil)), as: UTF8.self)
        #expect(!written.contains("\"requests"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: Any])
        #expect(object["requests"] == nil && object["requestsNotKept"] == nil)
    }

    @Test func eachRequestCarriesItsFactsAndLeavesOutWhatWasNotRead() throws {
        let written = try EvidenceJSON.encode(EvidenceFlow(Self.flow(requests: Self.requests), findingIDs: nil))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(written)) as? [String: Any])
        let requests = try #require(object["requests"] as? [[String: Any]])
        #expect(requests.map { $0["method"] as? String } == ["POST", "GET"])
        #expect(requests.map { $0["authority"] as? String } == ["api.example", "cdn.example"])
        #expect(requests.map { $0["bodyBytes"] as? Int } == [48_000, 0])
        #expect(requests[0]["responseStatus"] as? Int == 201)
        #expect(requests[1]["responseStatus"] == nil, "no status was read")
        #expect(requests[0]["path"] == nil, "the path was not kept")
        #expect(requests[1]["path"] as? String == "/logo.png")
        #expect(requests[0]["version"] as? String == "HTTP/2")
        #expect(requests[0]["instant"] as? String == "2026-09-21T14:13:21.250000000Z")
    }
}
