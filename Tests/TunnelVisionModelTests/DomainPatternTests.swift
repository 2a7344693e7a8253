import Testing
import TunnelVisionModel

@Suite struct DomainPatternTests {
    @Test(arguments: [
        ("api.acme.de", DomainPattern.Scope.exact, "api.acme.de"),
        ("  API.Acme.DE. ", .exact, "api.acme.de"),
        ("*.acme.de", .subdomains, "*.acme.de"),
        ("*.ACME.de.", .subdomains, "*.acme.de"),
        ("_dmarc.acme.de", .exact, "_dmarc.acme.de"),
        ("xn--bcher-kva.de", .exact, "xn--bcher-kva.de"),
        ("localhost", .exact, "localhost"),
    ])
    func normalisesToItsCanonicalText(input: String, scope: DomainPattern.Scope, text: String) throws {
        let parsed = try DomainPattern(parsing: input)
        #expect(parsed.scope == scope)
        #expect(parsed.text == text)
    }

    @Test(arguments: [
        ("", DomainPattern.ParseError.empty),
        ("   ", .empty),
        (".", .empty),
        ("*.", .emptyLabel),
        ("api*.acme.de", .misplacedWildcard),
        ("*", .misplacedWildcard),
        ("a.*.acme.de", .misplacedWildcard),
        ("**.acme.de", .misplacedWildcard),
        ("bücher.de", .nonASCII),
        ("api..acme.de", .emptyLabel),
        (".acme.de", .emptyLabel),
        (String(repeating: "a", count: 64) + ".de", .labelTooLong(String(repeating: "a", count: 64))),
        (Array(repeating: String(repeating: "a", count: 60), count: 5).joined(separator: "."), .nameTooLong),
        ("api.acme.de/path", .invalidCharacter("/")),
        ("api acme.de", .invalidCharacter(" ")),
        ("api:443", .invalidCharacter(":")),
    ])
    func refusesWhatIsNotAName(input: String, error: DomainPattern.ParseError) {
        #expect(throws: error) { try DomainPattern(parsing: input) }
    }

    @Test(arguments: [
        ("*.example.com", "api.example.com", true),
        ("*.example.com", "a.b.c.example.com", true),
        ("*.example.com", "example.com", false),
        ("*.example.com", "notexample.com", false),
        ("*.example.com", "example.com.evil.net", false),
        ("*.example.com", "API.EXAMPLE.COM.", true),
        ("example.com", "example.com", true),
        ("example.com", "Example.Com.", true),
        ("example.com", "www.example.com", false),
        ("example.com", "example.co", false),
    ])
    func matchesLabelWise(pattern: String, host: String, expected: Bool) throws {
        #expect(try DomainPattern(parsing: pattern).matches(host) == expected)
    }

    @Test func hostsAreNormalisedTheWayFindingsCiteThem() {
        #expect(DomainPattern.normalised(host: " Tracker.Example.NET. ") == "tracker.example.net")
    }
}

@Suite struct AuditTypeTests {
    func project(_ entries: [(String, String?)]) -> AuditProject {
        AuditProject(
            id: 1, name: "p", bundleIdentifier: nil, catalogueVersion: nil,
            allowlist: entries.map { AllowlistEntry(pattern: try! DomainPattern(parsing: $0.0), note: $0.1) },
            createdAt: .init(timeIntervalSince1970: 0))
    }

    @Test func theFirstCoveringEntryInWrittenOrderAnswers() {
        let p = project([("*.acme.de", "all of acme"), ("api.acme.de", "backend"), ("other.net", nil)])
        #expect(p.allowlistEntry(matching: "api.acme.de")?.note == "all of acme")
        #expect(p.allowlistEntry(matching: "other.net")?.pattern.text == "other.net")
        #expect(p.allowlistEntry(matching: "acme.de") == nil)
    }

    @Test func anEmptyNoteIsNoNote() {
        #expect(AllowlistEntry(pattern: try! DomainPattern(parsing: "a.de"), note: "  ").note == nil)
    }

    @Test func aBaselineHasNoRelease() {
        #expect(RecordingKind.baseline.release == nil)
        #expect(RecordingKind.audit(AppRelease(version: "2.4.1", build: "310")).release?.build == "310")
    }

    @Test(arguments: [(false, false, false), (true, false, false), (false, true, false), (true, true, true)])
    func pinningEvidenceNeedsInspectionAndTrust(enabled: Bool, trusted: Bool, supports: Bool) {
        #expect(InspectionConditions(inspectionEnabled: enabled, caTrusted: trusted).supportsPinningEvidence == supports)
    }

    /// The integers are disk format: these numbers must never change.
    @Test func serialisationCodesAreFixed() {
        #expect(AuditSerialization.code(of: .baseline).rawValue == 0)
        #expect(AuditSerialization.code(of: .audit(AppRelease(version: "1", build: "1"))).rawValue == 1)
        #expect(AuditSerialization.code(of: .consentGiven).code.rawValue == 0)
        #expect(AuditSerialization.code(of: .loggedIn).code.rawValue == 1)
        #expect(AuditSerialization.code(of: .loggedOut).code.rawValue == 2)
        #expect(AuditSerialization.code(of: .custom("x")) == (.custom, "x"))
        #expect(AuditSerialization.markerKind(code: 3, label: "x") == .custom("x"))
        #expect(AuditSerialization.markerKind(code: 9, label: nil) == nil)
        #expect(AuditSerialization.sessionKind(code: 1, version: "2", build: "3") == .audit(AppRelease(version: "2", build: "3")))
        #expect(AuditSerialization.sessionKind(code: 1, version: nil, build: nil) == nil)
    }

    @Test func aSessionIsOpenUntilItEnds() {
        let env = AuditEnvironment(deviceModel: "d", osVersion: "o", toolVersion: "t")
        let cond = InspectionConditions(inspectionEnabled: false, caTrusted: false)
        let open = Recording(id: 1, projectID: 1, kind: .baseline, environment: env, inspection: cond, startedAt: .init(timeIntervalSince1970: 0), endedAt: nil, notes: "")
        let ended = Recording(id: 1, projectID: 1, kind: .baseline, environment: env, inspection: cond, startedAt: .init(timeIntervalSince1970: 0), endedAt: .init(timeIntervalSince1970: 1), notes: "")
        #expect(open.isOpen && !ended.isOpen)
    }
}
