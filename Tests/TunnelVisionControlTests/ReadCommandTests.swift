import Foundation
import Testing
import TunnelVisionModel
import TunnelVisionStore

/// Every read, end to end: the built binary against a history seeded by `tvctl fixture`,
/// its table compared whole with the expected text, its JSON decoded.
struct ReadCommandTests {
    static let tables: [(name: String, arguments: [String])] = [
        ("project-list", ["project", "list"]),
        ("project-show", ["project", "show", "Acme Health"]),
        ("session-list", ["session", "list"]),
        ("session-show", ["session", "show", "2"]),
        ("flows", ["flows", "2"]),
        ("flows-limited", ["flows", "1", "--limit", "2"]),
        ("findings", ["findings", "2"]),
        ("catalogue-list", ["catalogue", "list"]),
        ("catalogue-show", ["catalogue", "show", "tr-03161-1_3.0"]),
    ]

    @Test(arguments: tables.map(\.name))
    func humanTableMatchesTheExpectedText(_ name: String) throws {
        let history = try ScratchHistory.seeded()
        let arguments = try #require(Self.tables.first { $0.name == name }).arguments
        let run = try TVCtlBinary.run(arguments, database: history.path)
        #expect(run.status == 0, "\(run)")
        #expect(run.error.isEmpty, "\(run)")
        #expect(!run.output.contains("\u{1B}["), "colour on a pipe")
        Golden.record(name, run.output)
        #expect(run.output == (try Golden.text(name)))
    }

    @Test func projectListJSON() throws {
        let history = try ScratchHistory.seeded()
        let run = try TVCtlBinary.run(["project", "list", "--json"], database: history.path)
        #expect(run.status == 0, "\(run)")
        let projects = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: Any]])
        #expect(projects.count == 1)
        let project = try #require(projects.first)
        #expect(project["id"] as? Int == 1)
        #expect(project["name"] as? String == "Acme Health")
        #expect(project["bundleIdentifier"] as? String == "com.acme.health")
        #expect(project["catalogue"] == nil, "absent means none")
        #expect(project["createdAt"] as? String == "2026-10-01T09:00:00.000Z")
        #expect(project["sessionCount"] as? Int == 2)
        let allowlist = try #require(project["allowlist"] as? [[String: String]])
        #expect(allowlist == [["pattern": "*.acme.example", "note": "backend"], ["pattern": "*.sentry.io", "note": "crash reporting"]])
    }

    @Test func sessionShowJSON() throws {
        let history = try ScratchHistory.seeded()
        let run = try TVCtlBinary.run(["session", "show", "2", "--json"], database: history.path)
        #expect(run.status == 0, "\(run)")
        let session = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(session["kind"] as? String == "audit")
        #expect(session["release"] as? [String: String] == ["version": "2.4.1", "build": "310"])
        #expect(session["projectName"] as? String == "Acme Health")
        #expect(session["deviceModel"] as? String == "Pixel 8")
        #expect(session["osVersion"] as? String == "Android 15")
        #expect(session["toolVersion"] as? String == TunnelVisionBuild.version)
        #expect(session["inspectionEnabled"] as? Bool == false)
        #expect(session["caTrusted"] as? Bool == false)
        #expect(session["isOpen"] as? Bool == false)
        #expect(session["startedAt"] as? String == "2026-10-01T09:30:00.000Z")
        #expect(session["endedAt"] as? String == "2026-10-01T09:35:00.000Z")
        #expect(session["flowCount"] as? Int == 10)
        let markers = try #require(session["markers"] as? [[String: Any]])
        #expect(markers.map { $0["kind"] as? String } == ["consentGiven", "loggedIn", "custom", "loggedOut"])
        #expect(markers[2]["label"] as? String == "opened the diary")
        #expect(markers[0]["at"] as? String == "2026-10-01T09:31:00.000Z")
    }

    @Test func sessionListOfOneProjectJSON() throws {
        let history = try ScratchHistory.seeded()
        let run = try TVCtlBinary.run(["session", "list", "1", "--json"], database: history.path)
        let sessions = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: Any]])
        #expect(sessions.map { $0["id"] as? Int } == [2, 1], "newest first")
        #expect(sessions.map { $0["kind"] as? String } == ["audit", "baseline"])
        #expect(sessions[1]["release"] == nil)
        #expect(sessions.map { $0["flowCount"] as? Int } == [10, 4])
    }

    @Test func flowsJSONCarriesEveryFlowWithItsReadings() throws {
        let history = try ScratchHistory.seeded()
        let run = try TVCtlBinary.run(["flows", "2", "--json"], database: history.path)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(list["flowCount"] as? Int == 10)
        let flows = try #require(list["flows"] as? [[String: Any]])
        #expect(flows.count == 10)
        let first = flows[0]
        #expect(first["protocol"] as? String == "tcp")
        #expect(first["peers"] as? [String] == ["10.77.0.2:43001", "198.51.100.20:443"])
        #expect(first["tlsVersion"] as? String == "TLS 1.3")
        #expect(first["tlsVersionSource"] as? String == "serverHello")
        let name = try #require(first["name"] as? [String: Any])
        #expect(name["text"] as? String == "api.acme.example")
        #expect(name["origin"] as? String == "sni")
        #expect(name["otherCandidates"] as? [String] == [])
        let shared = try #require(flows.first { ($0["name"] as? [String: Any])?["text"] as? String == "metrics.acme.example" })
        #expect((shared["name"] as? [String: Any])?["otherCandidates"] as? [String] == ["ads.adnet.example"])
        #expect(flows.filter { $0["name"] == nil }.count == 2, "the unnamed TLS flow and the DNS flow")
    }

    @Test func findingsJSONNumbersFindingsAndCoversEveryFlowInEachCheck() throws {
        let history = try ScratchHistory.seeded()
        let run = try TVCtlBinary.run(["findings", "2", "--json"], database: history.path)
        #expect(run.status == 0, "\(run)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let findings = try #require(document["findings"] as? [[String: Any]])
        #expect(findings.map { $0["id"] as? String } == ["F1", "F2", "F3", "F4", "F5"])
        #expect(findings.map { $0["kind"] as? String } == [
            "activityBeforeConsent", "hostNotInAllowlist", "weakTLSVersion", "cleartextTraffic", "unnamedFlow",
        ])
        #expect(findings[1]["host"] as? String == "tracker.adnet.example")
        #expect(findings[2]["tlsVersion"] as? String == "TLS 1.0")
        #expect(findings[2]["tlsVersionBasis"] as? String == "serverHello")
        let requirements = try #require(document["requirements"] as? [[String: Any]])
        let byID = Dictionary(uniqueKeysWithValues: requirements.map { (($0["requirement"] as? [String: Any])?["id"] as? String ?? "", $0) })
        #expect(byID["O.Ntwk_2"]?["verdict"] as? String == "contradicted")
        #expect(byID["O.Ntwk_2"]?["contraryFindings"] as? [String] == ["F3"])
        #expect(byID["O.Ntwk_4"]?["notAssessedReason"] as? String == "nothingObserved")
        #expect(byID["O.Ntwk_3"]?["notAssessedReason"] as? String == "outsideToolScope")
        let checks = try #require(document["checks"] as? [[String: Any]])
        #expect(checks.count == 6)
        for check in checks {
            let total = ["findingFlows", "satisfiedFlows", "unassessedFlows", "notApplicableFlows"].compactMap { check[$0] as? Int }.reduce(0, +)
            #expect(total == 10, "\(check["check"] ?? "?") covers every flow once")
        }
        let pinning = try #require(checks.first { $0["check"] as? String == "pinning" })
        let reasons = try #require(pinning["unassessed"] as? [[String: Any]])
        #expect(reasons.map { $0["reason"] as? String } == ["inspectionOff"])
        #expect(reasons.map { $0["flowCount"] as? Int } == [8])
        #expect((document["catalogue"] as? [String: Any])?["identifier"] as? String == "tr-03161-1_3.0")
    }

    @Test func catalogueCheckAcceptsTheShippedFileAndRefusesABrokenOne() throws {
        let shipped = TVCtlBinary.repository.appendingPathComponent("Catalogues/tr-03161-1_3.0.json").path
        let accepted = try TVCtlBinary.run(["catalogue", "check", shipped])
        #expect(accepted.status == 0, "\(accepted)")
        #expect(accepted.output.contains("is a usable catalogue: tr-03161-1_3.0, 10 requirements"))

        let scratch = try ScratchHistory()
        let broken = scratch.folder.appendingPathComponent("broken.json")
        var text = try String(contentsOfFile: shipped, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"minimumVersion\": \"1.2\"", with: "\"minimumVersion\": \"1.4\"")
        try text.write(to: broken, atomically: true, encoding: .utf8)
        let refused = try TVCtlBinary.run(["catalogue", "check", broken.path])
        #expect(refused.status == 1)
        #expect(refused.error == "tvctl: \(broken.path) is not a usable catalogue: tls.minimumVersion is '1.4', not one of 1.0, 1.1, 1.2, 1.3.\n")
    }
}
