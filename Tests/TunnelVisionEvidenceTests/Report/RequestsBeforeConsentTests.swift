import Foundation
import Testing
import TunnelVisionAudit
@testable import TunnelVisionEvidence
import TunnelVisionModel

/// Golden files of this target: written only when asked (EVIDENCE_RECORD_GOLDEN=1), for a person
/// to read and commit.
enum EvidenceGolden {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Golden")

    static func expect(_ actual: String, named name: String) throws {
        let file = folder.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["EVIDENCE_RECORD_GOLDEN"] != nil {
            try actual.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        #expect(actual == (try String(contentsOf: file, encoding: .utf8)), "differs from Golden/\(name)")
    }
}

@Suite("Requests before consent in findings.json and the report")
struct RequestsBeforeConsentTests {
    typealias Fixture = EvidenceFixture

    static func request(_ second: TimeInterval, _ authority: String?, method: String = "POST", body: Int64, stream: UInt32) -> ReadRequest {
        ReadRequest(
            instant: Instant(Fixture.start.addingTimeInterval(second)), version: .http2, method: method, authority: authority,
            path: nil, bodyBytes: body, responseStatus: 200, stream: stream)
    }

    /// An HTTP/2 connection opened before consent that sent readings to the backend and, coalesced,
    /// a request to a tracker; and an idle pre-connection used only after consent.
    static let flowsWithRequests: [StoredFlow] = {
        var uploads = Fixture.flow(18, second: 20) {
            $0.tlsStatus = .inspected
            $0.sni = "api.acme.example"
            $0.streamOpening = .tlsHandshake
        }
        uploads.requests = [
            request(20.5, "api.acme.example", body: 2_048, stream: 1),
            request(30, "api.acme.example:443", body: 46_000, stream: 3),
            request(35, "metrics.tracker.example", method: "GET", body: 0, stream: 5),
            request(70, "api.acme.example", body: 999, stream: 7),
        ]
        var idle = Fixture.flow(19, second: 40) {
            $0.tlsStatus = .inspected
            $0.sni = "api.acme.example"
            $0.streamOpening = .tlsHandshake
        }
        idle.requests = [request(75, "api.acme.example", body: 4_096, stream: 1)]
        return (Fixture.flows + [uploads, idle]).sorted { $0.firstSeen < $1.firstSeen }
    }()

    static func findingsJSON(_ bundle: EvidenceBundle) throws -> String {
        String(decoding: try EvidenceJSON.encode(bundle.findings), as: UTF8.self)
    }

    static func reportText(_ bundle: EvidenceBundle) throws -> String {
        let report = try EvidenceReport(bundle: bundle, capture: EvidenceReportTests.capture(), limits: .bundled)
        return EvidenceReportTests.text(of: report).joined(separator: "\n") + "\n"
    }

    @Test("findings.json names the requests, their bodies summed, and the basis each flow was judged on")
    func findingsDocumentGolden() throws {
        let bundle = try Fixture.bundle(flows: Self.flowsWithRequests)
        let json = try Self.findingsJSON(bundle)
        try EvidenceGolden.expect(json, named: "findings-with-requests.json")
        let finding = try #require(bundle.findings.findings.first { $0.host == "api.acme.example" && $0.kind == "activityBeforeConsent" })
        let requests = try #require(finding.requestsBeforeConsent)
        #expect(requests.count == 2)
        #expect(requests.bodyBytes == 48_048)
        #expect(requests.summary == "2 requests with 48.0 kB of bodies to api.acme.example before consent.")
        #expect(bundle.findings.checks.consent.basis?.requestsRead == [18, 19])
        #expect(!(bundle.findings.findings.contains { $0.flows.contains(19) && $0.kind == "activityBeforeConsent" }))
        #expect(bundle.findings.findings.contains { $0.host == "metrics.tracker.example" && $0.kind == "hostNotInAllowlist" })
    }

    @Test("The report lists the requests before consent under their heading, with the sentence of each finding")
    func reportTextGolden() throws {
        let text = try Self.reportText(try Fixture.bundle(flows: Self.flowsWithRequests))
        try EvidenceGolden.expect(text, named: "report-with-requests.txt")
        #expect(text.contains(EvidenceWording.Report.requestsBeforeConsentHeading))
        #expect(text.contains("1 request with 0 B of body to metrics.tracker.example before consent."))
    }

    @Test("Without read requests, findings.json and the report say nothing of requests")
    func withoutRequestsNothingChanges() throws {
        let bundle = try Fixture.bundle()
        let json = try Self.findingsJSON(bundle)
        try EvidenceGolden.expect(json, named: "findings-without-requests.json")
        #expect(!json.contains("requestsBeforeConsent") && !json.contains("requestsRead"))
        let text = try Self.reportText(bundle)
        try EvidenceGolden.expect(text, named: "report-without-requests.txt")
        #expect(!text.contains(EvidenceWording.Report.requestsBeforeConsentHeading))
    }
}
