import Foundation
import Testing
import TunnelVisionBuildStamp
import TunnelVisionModel
import TunnelVisionStore

/// Every read, end to end: the built binary against a history seeded by tvfixture,
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
        #expect(project["createdAt"] as? String == "2026-10-01T09:00:00.000000000Z")
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
        #expect(session["device"] as? [String: String] == ["model": "Pixel 8", "osVersion": "Android 15"])
        #expect(session["toolVersion"] as? String == BuildStamp.version)
        let inspection = try #require(session["inspection"] as? [String: Any])
        #expect(inspection["mode"] as? String == "off")
        #expect(inspection["inspectionEnabled"] as? Bool == false)
        #expect(inspection["caTrusted"] as? Bool == false)
        #expect(session["isOpen"] as? Bool == false)
        #expect(session["startedAt"] as? String == "2026-10-01T09:30:00.000000000Z")
        #expect(session["endedAt"] as? String == "2026-10-01T09:35:00.000000000Z")
        #expect(session["flowCount"] as? Int == 10)
        let markers = try #require(session["markers"] as? [[String: Any]])
        #expect(markers.map { $0["kind"] as? String } == ["consentGiven", "loggedIn", "custom", "loggedOut"])
        #expect(markers[2]["label"] as? String == "opened the diary")
        #expect(markers[0]["date"] as? String == "2026-10-01T09:31:00.000000000Z")
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
        #expect(list["total"] as? Int == 10)
        #expect(list["truncated"] as? Bool == false)
        #expect(list["limit"] == nil, "no limit was given")
        let flows = try #require(list["flows"] as? [[String: Any]])
        #expect(flows.count == 10)
        let first = flows[0]
        #expect(first["protocol"] as? String == "tcp")
        let peers = try #require(first["peers"] as? [[String: Any]])
        #expect(peers.map { "\($0["address"] ?? ""):\($0["port"] ?? "")" } == ["10.77.0.2:43001", "198.51.100.20:443"])
        let server = try #require(first["serverTLS"] as? [String: Any])
        #expect((server["version"] as? [String: Any])?["name"] as? String == "TLS 1.3")
        #expect(server["source"] as? String == "serverHello")
        #expect(first["clientTLS"] is [String: Any], "the client's offer is there as in flows.json")
        let name = try #require(first["name"] as? [String: Any])
        #expect(name["text"] as? String == "api.acme.example")
        #expect(name["origin"] as? String == "sni")
        let shared = try #require(flows.first { ($0["name"] as? [String: Any])?["text"] as? String == "metrics.acme.example" })
        #expect(shared["dnsOtherNames"] as? [String] == ["ads.adnet.example"])
        #expect(flows.filter { $0["name"] == nil }.count == 2, "the unnamed TLS flow and the DNS flow")
        #expect(flows.compactMap { $0["findingIDs"] as? [String] }.count == 10, "every flow says which findings it proves")
    }

    @Test func aLimitedFlowsJSONSaysWhatItLeftOut() throws {
        let history = try ScratchHistory.seeded()
        let run = try TVCtlBinary.run(["flows", "2", "--limit", "3", "--json"], database: history.path)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(list["total"] as? Int == 10)
        #expect(list["limit"] as? Int == 3)
        #expect(list["truncated"] as? Bool == true)
        let all = try TVCtlBinary.run(["flows", "2", "--json"], database: history.path)
        let every = try #require(try JSONSerialization.jsonObject(with: Data(all.output.utf8)) as? [String: Any])
        let ids = { (list: [String: Any]) in (list["flows"] as? [[String: Any]] ?? []).map { $0["id"] as? Int } }
        #expect(ids(list) == Array(ids(every).prefix(3)), "the oldest three")
    }

    @Test func aLimitWithNewestKeepsTheNewestFlows() throws {
        let history = try ScratchHistory.seeded()
        let all = try TVCtlBinary.run(["flows", "2", "--json"], database: history.path)
        let newest = try TVCtlBinary.run(["flows", "2", "--limit", "3", "--newest", "--json"], database: history.path)
        let ids = { (output: String) throws -> [Int?] in
            let list = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
            return (list["flows"] as? [[String: Any]] ?? []).map { $0["id"] as? Int }
        }
        #expect(try ids(newest.output) == Array(try ids(all.output).suffix(3)), "the newest three, oldest first")
        let table = try TVCtlBinary.run(["flows", "2", "--limit", "3", "--newest"], database: history.path)
        #expect(table.status == 0, "\(table)")
        #expect(table.output.hasSuffix("Showing the newest 3 of 10 flows: --limit shows more.\n"), "\(table.output)")
        for id in try ids(newest.output).compactMap({ $0 }) {
            #expect(table.output.split(separator: "\n").contains { $0.hasPrefix("\(id) ") }, "flow \(id) listed")
        }
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
        let weak = try #require(findings[2]["tlsVersion"] as? [String: Any])
        #expect((weak["version"] as? [String: Any])?["name"] as? String == "TLS 1.0")
        #expect(weak["basis"] as? String == "serverHello")
        #expect(findings.allSatisfy { ($0["statement"] as? String)?.isEmpty == false }, "each finding says what it shows")
        let requirements = try #require(document["requirements"] as? [[String: Any]])
        let byID = Dictionary(uniqueKeysWithValues: requirements.map { ($0["id"] as? String ?? "", $0) })
        #expect(byID["O.Ntwk_2"]?["verdict"] as? String == "contradicted")
        #expect(byID["O.Ntwk_2"]?["contraryFindingIDs"] as? [String] == ["F3"])
        #expect(byID["O.Ntwk_4"]?["notAssessedReason"] as? String == "inspectionOff")
        #expect(byID["O.Ntwk_3"]?["notAssessedReason"] as? String == "outsideToolScope")
        let checks = try #require(document["checks"] as? [String: [String: Any]])
        #expect(checks.keys.sorted() == ["certificateValidation", "consent", "encryption", "host", "pinning", "tlsVersion"])
        let flowsOfFinding = Dictionary(uniqueKeysWithValues: findings.map { ($0["id"] as? String ?? "", $0["flows"] as? [Int] ?? []) })
        for (name, check) in checks {
            let found = (check["findingIDs"] as? [String] ?? []).flatMap { flowsOfFinding[$0] ?? [] }
            let unassessed = (check["unassessed"] as? [[String: Any]] ?? []).flatMap { $0["flows"] as? [Int] ?? [] }
            let covered = Set(found).count + (check["satisfied"] as? [Int] ?? []).count
                + (check["notApplicable"] as? [Int] ?? []).count + unassessed.count
            #expect(covered == 10, "\(name) covers every flow once")
        }
        let reasons = try #require(checks["pinning"]?["unassessed"] as? [[String: Any]])
        #expect(reasons.map { $0["reason"] as? String } == ["inspectionOff"])
        #expect(reasons.map { ($0["flows"] as? [Int])?.count } == [8])
        #expect(document["format"] as? String == "tunnelvision.evidence.findings", "the shape of the bundle's findings.json")
        #expect((document["catalogue"] as? [String: Any])?["identifier"] as? String == "tr-03161-1_3.0")
    }

    @Test func findingsJSONIsTheBundlesFindingsJSON() throws {
        let history = try ScratchHistory.seeded()
        let output = history.folder.appendingPathComponent("bundle")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        _ = try TVCtlBinary.run(["export", "2", "--output", output.path], database: history.path)
        let archive = try #require(try FileManager.default.contentsOfDirectory(atPath: output.path).first { $0.hasSuffix(".zip") })
        let unzip = Process()
        unzip.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
        unzip.arguments = ["-p", output.appendingPathComponent(archive).path, "*/findings.json"]
        let pipe = Pipe()
        unzip.standardOutput = pipe
        try unzip.run()
        let bundled = pipe.fileHandleForReading.readDataToEndOfFile()
        unzip.waitUntilExit()
        let run = try TVCtlBinary.run(["findings", "2", "--json"], database: history.path)
        #expect(run.output == String(decoding: bundled, as: UTF8.self), "byte for byte")
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
