import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionRelay

/// The requests read inside a terminated connection: the relay's hook on the plaintext it carries,
/// driven over real sockets with real TLS on both legs, and the bound on what a connection keeps.
@Suite(.serialized) struct RelayRequestsTests {
    @Test func aRequestSentInsideAnInspectedConnectionReachesTheFinalReportWithItsStatus() throws {
        let relay = try RelayConnectionHarness()
        let (phone, server) = try RelayConnectionTests.established(relay)
        let request = "POST /v1/upload?user=42 HTTP/1.1\r\nHost: api.test.example\r\nContent-Length: 5\r\n\r\nhello"
        phone.write(request)
        var atServer = ""
        try #require(relay.run(until: { atServer == request }, also: { atServer += server.read() }))
        let response = "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"
        server.write(response)
        var atPhone = ""
        try #require(relay.run(until: { atPhone == response }, also: { atPhone += phone.read() }))
        relay.closeServer()
        let report = try #require(relay.runToEnd())
        let read = try #require(report.requests.first)
        #expect(report.requests.count == 1)
        #expect(read.version == .http1)
        #expect(read.method == "POST")
        #expect(read.authority == "api.test.example")
        // The recording asked for no paths (the harness's observer presents the default).
        #expect(read.path == nil)
        #expect(read.bodyBytes == 5)
        #expect(read.responseStatus == 201)
        #expect(report.requestsNotKept == 0)
        // The facts the history stores carry them; the earlier report (the outcome) carried none.
        #expect(report.facts.requests == report.requests)
        #expect(relay.observed.reports.first { !$0.isFinal }?.requests == [])
    }

    static func feed(_ requests: ConnectionRequests, _ text: String, from side: RelayConnection.Side) {
        Array(text.utf8).withUnsafeBytes { requests.read($0, from: side) }
    }

    static func report() -> RelayReport {
        RelayReport(
            phoneLeg: RelayPhoneLeg(
                phone: Endpoint(address: IPAddress("10.77.0.2")!, port: 40_000), originalDestination: RelayConnectionHarness.destination),
            accepted: 0)
    }

    @Test func aConnectionKeepsAtMostItsBoundOfRequestsAndCountsTheRest() {
        let requests = ConnectionRequests()
        requests.begin(keepingPaths: true)
        let extra = 7
        for _ in 0..<(ConnectionRequests.keptRequests + extra) {
            Self.feed(requests, "GET /a HTTP/1.1\r\nHost: api.example\r\n\r\n", from: .phone)
            Self.feed(requests, "HTTP/1.1 204 No Content\r\n\r\n", from: .server)
        }
        var report = Self.report()
        requests.finish(into: &report)
        #expect(report.requests.count == ConnectionRequests.keptRequests)
        #expect(report.requestsNotKept == extra)
        #expect(report.requests.allSatisfy { $0.path == "/a" && $0.responseStatus == 204 })
    }

    @Test func aConnectionKeepsAtMostItsBoundOfTextAndCountsTheRest() {
        let requests = ConnectionRequests()
        requests.begin(keepingPaths: false)
        let host = String(repeating: "h", count: 4_000)
        for _ in 0..<20 {
            Self.feed(requests, "GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n", from: .phone)
            Self.feed(requests, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", from: .server)
        }
        var report = Self.report()
        requests.finish(into: &report)
        let kept = ConnectionRequests.keptTextBytes / (host.utf8.count + 3)
        #expect(report.requests.count == kept)
        #expect(report.requestsNotKept == 20 - kept)
    }

    /// A phone that sends what is not HTTP stops the reading, never the connection's bytes.
    @Test func plaintextThatIsNotHTTPEndsTheReadingQuietly() {
        let requests = ConnectionRequests()
        Self.feed(requests, "\u{16}\u{3}\u{1} not a request line at all\r\n\r\n", from: .phone)
        var report = Self.report()
        requests.finish(into: &report)
        #expect(requests.stopped != nil)
        #expect(report.requests.isEmpty)
    }
}
