import Foundation
import Testing
import TunnelVisionAudit
@testable import TunnelVisionEvidence
import TunnelVisionModel

struct EvidenceBundleTests {
    typealias Fixture = EvidenceFixture

    static func json(_ file: EvidenceFile) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: file.data) as? [String: Any])
    }

    static func document(_ name: String) throws -> [String: Any] {
        let file = try #require(try files()[name])
        return try json(file)
    }

    static func files() throws -> [String: EvidenceFile] {
        Dictionary(uniqueKeysWithValues: try Fixture.bundle().documentFiles().map { ($0.name, $0) })
    }

    @Test func refusesWhatIsNotOneClosedSessionOfTheProject() {
        #expect(throws: EvidenceBundleError.sessionStillOpen) {
            try EvidenceBundle(
                project: Fixture.project, session: Fixture.session(endedAt: nil), markers: [], flows: [],
                catalogue: Fixture.catalogue, exportedWith: "t", exportedAt: Fixture.exportedAt)
        }
        #expect(throws: EvidenceBundleError.sessionOfAnotherProject(sessionProjectID: 4, projectID: 3)) {
            try EvidenceBundle(
                project: Fixture.project, session: Fixture.session(projectID: 4), markers: [], flows: [],
                catalogue: Fixture.catalogue, exportedWith: "t", exportedAt: Fixture.exportedAt)
        }
        #expect(throws: EvidenceBundleError.duplicateFlow(id: 12)) {
            try Fixture.bundle(flows: Fixture.flows + [Fixture.flows[2]])
        }
    }

    @Test func findingsAreNumberedInTheirOrderAndCitedByFlowsAndRequirements() throws {
        let bundle = try Fixture.bundle()
        let findings = bundle.findings.findings
        #expect(findings.map(\.id) == (1...findings.count).map { "F\($0)" })
        #expect(findings.count >= 6)
        for (entry, finding) in zip(findings, bundle.assessment.findings.findings) {
            #expect(entry.flows == finding.flowIDs)
            #expect(entry.kind == finding.kind.rawValue)
        }
        for flow in bundle.flows.flows {
            let proven = findings.filter { $0.flows.contains(flow.id) }.map(\.id)
            #expect(flow.findingIDs ?? [] == proven, "flow \(flow.id)")
        }
        let ntwk4 = try #require(bundle.findings.requirements.first { $0.id == "O.Ntwk_4" })
        let absent = try #require(findings.first { $0.kind == "pinningAbsent" })
        let observed = try #require(findings.first { $0.kind == "pinningObserved" })
        #expect(ntwk4.contraryFindingIDs == [absent.id])
        #expect(ntwk4.supportingFindingIDs == [observed.id])
        #expect(ntwk4.verdict == "contradicted")
        let ntwk3 = try #require(bundle.findings.requirements.first { $0.id == "O.Ntwk_3" })
        #expect(ntwk3.verdict == "notAssessed" && ntwk3.notAssessedReason == "outsideToolScope")
        #expect(ntwk3.verdictStatement == "Not assessed by this tool.")
    }

    @Test func twoExportsDifferOnlyInTheExportInstant() throws {
        let first = try Fixture.bundle().documentFiles()
        let second = try Fixture.bundle(exportedAt: Fixture.exportedAt.addingTimeInterval(0.5)).documentFiles()
        #expect(first.map(\.name) == ["session.json", "flows.json", "flows.csv", "findings.json"])
        for (one, other) in zip(first, second) {
            let differing = zip(one.data.split(separator: 0x0A), other.data.split(separator: 0x0A))
                .filter { $0 != $1 }.map { String(decoding: $0.0, as: UTF8.self) }
            #expect(differing == (one.name == "session.json" ? [#"  "exportedAt" : "2026-10-09T13:46:40.000Z","#] : []))
        }
    }

    @Test func documentsNameTheirFormatAndWriteNoNull() throws {
        let files = try Self.files()
        for (name, format) in [("session.json", "session"), ("flows.json", "flows"), ("findings.json", "findings")] {
            let file = try #require(files[name])
            let object = try Self.json(file)
            #expect(object["format"] as? String == "tunnelvision.evidence.\(format)")
            #expect(object["formatVersion"] as? Int == 1)
            #expect(!String(decoding: file.data, as: UTF8.self).contains("null"))
        }
    }

    @Test func sessionDocumentSaysWhatIsNotInsideAndHowTrafficIsAttributed() throws {
        let session = try Self.document("session.json")
        #expect(session["attribution"] as? String == EvidenceWording.Note.attribution)
        #expect(session["notIncluded"] as? String == EvidenceWording.Note.notIncluded(keyLog: EvidenceKeyLog(included: false, flows: 0)))
        #expect(session["exportedWith"] as? String == "tvctl 1.0.0")
        let recording = try #require(session["session"] as? [String: Any])
        #expect(recording["toolVersion"] as? String == "0.9.0")
        #expect(recording["endedAt"] as? String == "2026-10-09T12:56:40.000Z")
        let markers = try #require(recording["markers"] as? [[String: Any]])
        #expect(markers.map { $0["id"] as? Int } == [1, 2])
        #expect(markers[1]["label"] as? String == "opened \"settings\"")
        let release = try #require(recording["release"] as? [String: Any])
        #expect(release["version"] as? String == "2.4.1" && release["build"] as? String == "310")
        let project = try #require(session["project"] as? [String: Any])
        #expect(project["catalogue"] as? String == "tr-03161-1_3.0")
        #expect((project["allowlist"] as? [[String: Any]])?.map { $0["pattern"] as? String } == ["*.acme.example", "acme.example"])
    }

    @Test func flowsDocumentWritesReadingsWithTheirSource() throws {
        let flows = try #require(try Self.document("flows.json")["flows"] as? [[String: Any]])
        #expect(flows.map { $0["id"] as? Int } == [16, 11, 12, 13, 14, 15, 17])
        for flow in flows { #expect(flow["serverCertificate"] != nil) }
        let inspected = flows[2]
        let server = try #require(inspected["serverTLS"] as? [String: Any])
        #expect(server["source"] as? String == "upstreamConnection")
        #expect((server["cipherSuite"] as? [String: Any])?["hex"] as? String == "0xC02F")
        #expect((server["version"] as? [String: Any])?["name"] as? String == "TLS 1.2")
        #expect((inspected["serverCertificate"] as? [String: Any])?["visibility"] as? String == "replacedByInspection")
        let draft = try #require(((flows[4]["clientTLS"] as? [String: Any])?["versions"] as? [[String: Any]])?.first)
        #expect(draft["wireValue"] as? Int == 0x7F1C && draft["name"] == nil)
        let dns = flows[0]
        #expect(dns["sni"] == nil && dns["name"] == nil && dns["clientTLS"] == nil && dns["streamOpening"] == nil)
        #expect((dns["peers"] as? [[String: Any]])?.count == 2)
        let named = try #require(flows[1]["name"] as? [String: Any])
        #expect(named["origin"] as? String == "dns")
        #expect(flows[1]["dnsOtherNames"] as? [String] == ["ads.example"])
    }

    @Test func findingsDocumentCoversAllSixChecks() throws {
        let bundle = try Fixture.bundle()
        let findings = try Self.document("findings.json")
        let checks = try #require(findings["checks"] as? [String: [String: Any]])
        #expect(Set(checks.keys) == ["encryption", "tlsVersion", "host", "pinning", "consent", "certificateValidation"])
        for (name, check) in checks {
            let ids = (check["satisfied"] as? [Int] ?? []) + (check["notApplicable"] as? [Int] ?? [])
                + (check["unassessed"] as? [[String: Any]] ?? []).flatMap { $0["flows"] as? [Int] ?? [] }
            let findingFlows = bundle.findings.findings.filter { $0.check == name }.flatMap(\.flows)
            #expect(Set(ids.map(Int64.init) + findingFlows) == Set(bundle.flowIDs), "\(name)")
        }
        let refused = try #require((checks["tlsVersion"]?["unassessed"] as? [[String: Any]])?.first { $0["reason"] as? String == "serverRefused" })
        #expect(refused["alert"] as? Int == 40 && refused["flows"] as? [Int] == [17])
        let catalogue = try #require(findings["catalogue"] as? [String: Any])
        #expect((catalogue["source"] as? [String: Any])?["sha256"] as? String == Fixture.catalogue.source.sha256)
        #expect(findings["verdicts"] as? String == EvidenceWording.Note.verdicts)
        let weak = try #require(bundle.findings.findings.first { $0.kind == "weakTLSVersion" })
        #expect(weak.tlsVersion?.basis == "serverHello" && weak.tlsVersion?.fromHelloRetryRequest == false)
        #expect(weak.statement.contains("TLS 1.2") && !weak.statement.contains("TLS 1.0"))
    }
}
