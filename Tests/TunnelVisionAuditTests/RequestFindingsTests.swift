import Foundation
import Testing
import TunnelVisionAudit
import TunnelVisionModel

/// Flows with requests read inside them, as the relay hands them to the history.
enum RequestFixture {
    static func request(
        _ seconds: Double, _ authority: String?, method: String = "POST", body: Int64 = 0, version: ReadRequest.Version = .http2
    ) -> ReadRequest {
        ReadRequest(
            instant: Fixture.at(seconds), version: version, method: method, authority: authority, path: nil,
            bodyBytes: body, responseStatus: 200, stream: version == .http2 ? 1 : nil)
    }

    static func flow(_ id: Int64, at seconds: Double, sni: String? = "api.example.com", requests: [ReadRequest]) -> StoredFlow {
        var flow = Fixture.flow(id, at: seconds, status: .inspected, sni: sni, opening: .tlsHandshake)
        flow.requests = requests
        return flow
    }
}

/// One row of the consent rule with requests: where the marker stands against them.
struct RequestConsentRow: Sendable, CustomTestStringConvertible {
    let row: String
    let firstPacket: Double
    var markers: [Double] = [10]
    let requests: [ReadRequest]
    let expected: ConsentAssessment
    var testDescription: String { row }
}

@Suite("Consent is judged on the first request where requests were read")
struct RequestConsentTests {
    typealias R = RequestFixture

    static let rows: [RequestConsentRow] = [
        RequestConsentRow(
            row: "a request before the marker → requestsBeforeConsent, naming its host", firstPacket: 1,
            requests: [R.request(5, "api.example.com", body: 512)], expected: .requestsBeforeConsent(hosts: ["api.example.com"])),
        RequestConsentRow(
            row: "an idle pre-connection whose first request came after the marker → afterConsent", firstPacket: 1,
            requests: [R.request(12, "api.example.com", body: 4096)], expected: .afterConsent),
        RequestConsentRow(
            row: "requests before and after the marker → only those before name their hosts", firstPacket: 1,
            requests: [R.request(3, "api.example.com"), R.request(11, "cdn.example.com")],
            expected: .requestsBeforeConsent(hosts: ["api.example.com"])),
        RequestConsentRow(
            row: "a request that named no host → requestsBeforeConsent without a host", firstPacket: 1,
            requests: [R.request(3, nil, version: .http1)], expected: .requestsBeforeConsent(hosts: [nil])),
        RequestConsentRow(
            row: "the first request between two markers → requestBetweenConsentMarkers", firstPacket: 1, markers: [10, 20],
            requests: [R.request(15, "api.example.com")], expected: .notAssessed(.requestBetweenConsentMarkers)),
        RequestConsentRow(
            row: "a flow without requests keeps the rule of its first packet → beforeConsent", firstPacket: 1,
            requests: [], expected: .beforeConsent),
    ]

    @Test(arguments: rows)
    func row(_ row: RequestConsentRow) {
        let markers = row.markers.enumerated().map { Fixture.consent($1, id: Int64($0 + 1)) }
        let flow = R.flow(1, at: row.firstPacket, requests: row.requests)
        let kind = RecordingKind.audit(AppRelease(version: "2.4.1", build: "310"))
        #expect(ConsentAssessment(of: flow, sessionKind: kind, consent: ConsentInterval(markers: markers, sessionID: 7)) == row.expected)
    }

    @Test("Requests before consent are summed per host, in the order they were sent, with the basis of each flow")
    func requestsSummedPerHostWithBasis() throws {
        let flows = [
            R.flow(1, at: 1, requests: [R.request(2, "api.example.com", body: 1000), R.request(4, "api.example.com:443", body: 500),
                                        R.request(11, "api.example.com", body: 9999)]),
            R.flow(2, at: 2, requests: [R.request(3, "API.example.com", method: "PUT", body: 48)]),
            R.flow(3, at: 3, requests: [R.request(30, "api.example.com", body: 7)]),
            Fixture.flow(4, at: 4, sni: "old.example.com"),
        ]
        let findings = FindingsClassifierTests.classify(flows, markers: [Fixture.consent(10)])
        let consent = findings.findings(of: .consent)
        #expect(consent.map(\.evidence) == [.requestsBeforeConsent(host: "api.example.com"), .activityBeforeConsent])
        #expect(consent.map(\.flowIDs) == [[1, 2], [4]])
        let behind = findings.requests(behind: try #require(consent.first))
        #expect(behind.map(\.flowID) == [1, 2, 1])
        #expect(behind.reduce(0) { $0 + $1.request.bodyBytes } == 1548)
        #expect(findings.consentJudgedOnRequests == [1, 2, 3])
        #expect(findings.consentJudgedOnConnectionStart == [4])
        #expect(findings.consent.satisfiedFlowIDs == [3])
        #expect(findings.summary(of: .consent).totalFlows == 4)
    }

    @Test("A coalesced connection with requests to two hosts before consent proves two findings and counts once")
    func coalescedHostsBeforeConsent() {
        let flow = R.flow(1, at: 1, requests: [R.request(2, "api.example.com"), R.request(3, "metrics.example.org", body: 20)])
        let findings = FindingsClassifierTests.classify([flow], markers: [Fixture.consent(10)])
        #expect(findings.findings(of: .consent).map(\.evidence) == [
            .requestsBeforeConsent(host: "api.example.com"), .requestsBeforeConsent(host: "metrics.example.org"),
        ])
        #expect(findings.summary(of: .consent).findingFlows == 1)
    }
}

@Suite("The allowlist judges every host a connection's requests named")
struct RequestHostTests {
    typealias R = RequestFixture

    @Test("Coalesced requests for two names, one allowed and one not: the one not allowed is the finding")
    func coalescedOneAllowedOneNot() {
        let flow = R.flow(1, at: 1, requests: [R.request(2, "api.example.com"), R.request(3, "tracker.example.org:443")])
        let project = Fixture.project(allowing: ["api.example.com"])
        #expect(HostAssessment(of: flow, project: project) == .carriedHostsNotInAllowlist(["tracker.example.org"]))
        let findings = FindingsClassifierTests.classify([flow])
        #expect(findings.findings(of: .host).map(\.evidence) == [.hostNotInAllowlist(host: "tracker.example.org")])
        #expect(findings.summary(of: .host).findingFlows == 1)
    }

    @Test("A CONNECT's authority is judged, though the connection's name is allowed")
    func connectAuthority() {
        let flow = R.flow(1, at: 1, sni: "proxy.example.com", requests: [R.request(2, "upload.example.net:443", method: "CONNECT")])
        let project = Fixture.project(allowing: ["*.example.com"])
        #expect(HostAssessment(of: flow, project: project) == .carriedHostsNotInAllowlist(["upload.example.net"]))
    }

    @Test("A name not allowed comes first, then the hosts its requests named that are not allowed either")
    func nameAndAuthoritiesNotAllowed() {
        let flow = R.flow(1, at: 1, sni: "ads.example.org", requests: [
            R.request(2, "ads.example.org"), R.request(3, "[2001:db8::1]:8443"), R.request(4, "api.example.com"),
        ])
        let project = Fixture.project(allowing: ["api.example.com"])
        #expect(HostAssessment(of: flow, project: project) == .carriedHostsNotInAllowlist(["ads.example.org", "2001:db8::1"]))
    }

    @Test("Requests that named only allowed hosts leave the name's judgement as it was")
    func allowedAuthoritiesChangeNothing() {
        let project = Fixture.project(allowing: ["api.example.com", "tracker.example.org"])
        let flow = R.flow(1, at: 1, sni: "api.example.com", requests: [R.request(2, "tracker.example.org")])
        #expect(HostAssessment(of: flow, project: project) == .allowed)
        let notAllowed = R.flow(2, at: 1, sni: "ads.example.org", requests: [R.request(2, "ads.example.org:443")])
        #expect(HostAssessment(of: notAllowed, project: project) == .notInAllowlist(host: "ads.example.org"))
    }
}
