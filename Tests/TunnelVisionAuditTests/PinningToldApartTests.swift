import Foundation
import Testing
import TunnelVisionAudit
import TunnelVisionModel

/// One row of the table "A refusal is pinning only when another host accepted the CA".
struct RefusalRow: Sendable, CustomTestStringConvertible {
    let row: String
    let flows: [StoredFlow]
    let store: CATrustStore?
    let expected: [FindingEvidence]
    var testDescription: String { row }
}

@Suite("A refusal is pinning only when another host of the recording accepted the CA")
struct PinningToldApartTests {
    static let policy = FindingsPolicy(minimumTLSVersion: .tls12)!

    static func session(store: CATrustStore?) -> Recording {
        Recording(
            id: 7, projectID: 1, kind: .audit(AppRelease(version: "2.4.1", build: "310")),
            environment: AuditEnvironment(deviceModel: "Pixel 8", osVersion: "Android 15", toolVersion: "1.0"),
            inspection: InspectionConditions(mode: .pinning, caTrusted: true, caStore: store),
            startedAt: Fixture.at(0), endedAt: Fixture.at(3600), notes: "")
    }

    static func refused(_ id: Int64, _ host: String, at seconds: Double = 0) -> StoredFlow {
        Fixture.flow(id, at: seconds, status: .notInspectable, sni: host)
    }

    static func accepted(_ id: Int64, _ host: String, at seconds: Double = 0) -> StoredFlow {
        Fixture.flow(id, at: seconds, status: .inspected, sni: host)
    }

    static let rows: [RefusalRow] = [
        RefusalRow(
            row: "one host accepts, another refuses → the refusal is pinning observed",
            flows: [accepted(1, "cdn.example.net"), refused(2, "api.example.com", at: 1)], store: .user,
            expected: [.pinningAbsent(host: "cdn.example.net"), .pinningObserved(host: "api.example.com")]),
        RefusalRow(
            row: "the acceptance may come after the refusal: the recording is read whole",
            flows: [refused(1, "api.example.com"), accepted(2, "cdn.example.net", at: 5)], store: .system,
            expected: [.pinningObserved(host: "api.example.com"), .pinningAbsent(host: "cdn.example.net")]),
        RefusalRow(
            row: "every connection refuses → not told apart, the user store named",
            flows: [refused(1, "api.example.com"), refused(2, "cdn.example.net", at: 1)], store: .user,
            expected: [
                .refusalNotToldApart(host: "api.example.com", store: .user),
                .refusalNotToldApart(host: "cdn.example.net", store: .user),
            ]),
        RefusalRow(
            row: "only the same host accepted → not told apart (the acceptance must be another host's)",
            flows: [refused(1, "api.example.com"), accepted(2, "API.example.com.", at: 1)], store: .userFullTrust,
            expected: [.refusalNotToldApart(host: "api.example.com", store: .userFullTrust), .pinningAbsent(host: "api.example.com")]),
        RefusalRow(
            row: "a recording declared before the store was asked → not told apart, no store",
            flows: [refused(1, "api.example.com")], store: nil,
            expected: [.refusalNotToldApart(host: "api.example.com", store: nil)]),
        RefusalRow(
            row: "a mirror of an unverified server accepted is no acceptance of the CA → not told apart",
            flows: [
                Fixture.flow(1, status: .inspected, sni: "cdn.example.net", relay: .presentedMirror),
                refused(2, "api.example.com", at: 1),
            ],
            store: .system, expected: [.refusalNotToldApart(host: "api.example.com", store: .system)]),
        RefusalRow(
            row: "an acceptance without an announced name names no other host → not told apart",
            flows: [
                Fixture.flow(1, status: .inspected, dns: ResolvedName(name: "cdn.example.net")),
                refused(2, "api.example.com", at: 1),
            ],
            store: .user, expected: [.refusalNotToldApart(host: "api.example.com", store: .user)]),
    ]

    @Test(arguments: rows)
    func row(_ row: RefusalRow) {
        let findings = FindingsClassifier.classify(
            flows: row.flows, project: Fixture.project(allowing: ["*.example.com", "*.example.net"]),
            session: Self.session(store: row.store), markers: [], policy: Self.policy)
        #expect(findings.findings(of: .pinning).map(\.evidence) == row.expected)
    }

    @Test("O.Ntwk_4 is not assessed, with its own reason, when every refusal cannot be told apart")
    func verdictWhenNothingToldApart() throws {
        let catalogue = try Repository.shipped()
        let refusing = SessionAssessment(
            catalogue: catalogue, flows: [Self.refused(1, "api.example.com")], project: Fixture.project(),
            session: Self.session(store: .user), markers: [])
        let toldApart = SessionAssessment(
            catalogue: catalogue, flows: [Self.accepted(1, "cdn.example.net"), Self.refused(2, "api.example.com")],
            project: Fixture.project(), session: Self.session(store: .user), markers: [])
        let requirement = "O.Ntwk_4"
        #expect(refusing.requirements.first { $0.requirement.id == requirement }?.verdict == .notAssessed(.refusalNotToldApart))
        // The acceptance of the other host is the contrary finding; the refusal supports.
        let assessed = try #require(toldApart.requirements.first { $0.requirement.id == requirement })
        #expect(assessed.verdict == .contradicted)
        #expect(assessed.supportingFindings.map(\.evidence) == [.pinningObserved(host: "api.example.com")])
    }
}
