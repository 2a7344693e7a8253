import Foundation
import Testing
import TunnelVisionAudit
import TunnelVisionModel

/// One row of the verdict table (a verdict is not the test result): a session and the verdict on one requirement.
struct VerdictRow: Sendable, CustomTestStringConvertible {
    let row: String
    let requirement: String
    let flows: [StoredFlow]
    let expected: RequirementVerdict
    let contrary: Int
    let supporting: Int
    var mode: InspectionMode = .pinning
    var caTrusted = true
    var testDescription: String { row }
}

@Suite("The verdict is not the test result")
struct SessionAssessmentTests {
    static let rows: [VerdictRow] = [
        VerdictRow(
            row: "the rule reads no finding kind → notAssessed(outsideToolScope)", requirement: "O.Ntwk_6",
            flows: [Fixture.flow(1, status: .inspected, sni: "tracker.example.org")],
            expected: .notAssessed(.outsideToolScope), contrary: 0, supporting: 0),
        VerdictRow(
            row: "a finding of a contrary kind → contradicted", requirement: "O.Ntwk_1",
            flows: [Fixture.flow(1, port: 80, opening: .httpRequest)], expected: .contradicted, contrary: 1, supporting: 0),
        VerdictRow(
            row: "a contrary finding beside satisfied flows and a supporting finding → contradicted, supporting still given",
            requirement: "O.Ntwk_4",
            flows: [Fixture.flow(1, status: .inspected, sni: "api.example.com"),
                    Fixture.flow(2, status: .notInspectable, sni: "bank.example.com")],
            expected: .contradicted, contrary: 1, supporting: 1),
        VerdictRow(
            row: "no contrary finding, the check has satisfied flows → observedWithoutContradiction", requirement: "O.Ntwk_2",
            flows: [Fixture.flow(1, sni: "api.example.com", server: Fixture.serverHello(.tls13))],
            expected: .observedWithoutContradiction, contrary: 0, supporting: 0),
        VerdictRow(
            row: "a refusal that no other host's acceptance tells apart → notAssessed(refusalNotToldApart), nothing in its favour",
            requirement: "O.Ntwk_4", flows: [Fixture.flow(1, status: .notInspectable, sni: "bank.example.com")],
            expected: .notAssessed(.refusalNotToldApart), contrary: 0, supporting: 0),
        VerdictRow(
            row: "anything else → notAssessed(nothingObserved)", requirement: "O.Ntwk_2",
            flows: [Fixture.flow(1, port: 443), Fixture.flow(2, proto: .udp, port: 53)],
            expected: .notAssessed(.nothingObserved), contrary: 0, supporting: 0),
        VerdictRow(
            row: "a session without flows → notAssessed(nothingObserved)", requirement: "O.Purp_8",
            flows: [], expected: .notAssessed(.nothingObserved), contrary: 0, supporting: 0),
        VerdictRow(
            row: "O.Ntwk_5, a validation recording in which a connection went on → contradicted", requirement: "O.Ntwk_5",
            flows: [Fixture.flow(1, status: .inspected, sni: "api.example.com"),
                    Fixture.flow(2, status: .notInspectable, sni: "bank.example.com", relay: .refused(alert: 48))],
            expected: .contradicted, contrary: 1, supporting: 0, mode: .validation(.untrustedIssuer)),
        VerdictRow(
            row: "O.Ntwk_5, a validation recording in which every connection refused → observedWithoutContradiction",
            requirement: "O.Ntwk_5",
            flows: [Fixture.flow(1, status: .notInspectable, sni: "bank.example.com", relay: .refused(alert: 42))],
            expected: .observedWithoutContradiction, contrary: 0, supporting: 0, mode: .validation(.wrongName)),
        VerdictRow(
            row: "O.Ntwk_5, a pinning recording, whatever was accepted → notAssessed(nothingObserved)", requirement: "O.Ntwk_5",
            flows: [Fixture.flow(1, status: .inspected, sni: "api.example.com")],
            expected: .notAssessed(.nothingObserved), contrary: 0, supporting: 0, mode: .pinning),
        VerdictRow(
            row: "pinning kept from every flow by inspection off → notAssessed(inspectionOff)", requirement: "O.Ntwk_4",
            flows: [Fixture.flow(1, sni: "api.example.com"), Fixture.flow(2, sni: "bank.example.com")],
            expected: .notAssessed(.inspectionOff), contrary: 0, supporting: 0, mode: .off, caTrusted: false),
        VerdictRow(
            row: "pinning kept from every flow by a CA not trusted → notAssessed(caNotTrusted)", requirement: "O.Ntwk_4",
            flows: [Fixture.flow(1, sni: "api.example.com")],
            expected: .notAssessed(.caNotTrusted), contrary: 0, supporting: 0, mode: .pinning, caTrusted: false),
        VerdictRow(
            row: "pinning with inspection on but no outcome recorded → notAssessed(nothingObserved)", requirement: "O.Ntwk_4",
            flows: [Fixture.flow(1, sni: "api.example.com")],
            expected: .notAssessed(.nothingObserved), contrary: 0, supporting: 0),
    ]

    @Test(arguments: rows)
    func verdict(_ row: VerdictRow) throws {
        let assessment = SessionAssessment(
            catalogue: try Repository.shipped(), flows: row.flows, project: Fixture.project(allowing: ["api.example.com"]),
            session: Fixture.session(caTrusted: row.caTrusted, mode: row.mode), markers: [])
        let requirement = try #require(assessment.requirements.first { $0.requirement.id == row.requirement })
        #expect(requirement.verdict == row.expected)
        #expect(requirement.contraryFindings.count == row.contrary)
        #expect(requirement.supportingFindings.count == row.supporting)
    }

    @Test("Every requirement in the catalogue's order, each with the coverage of its check")
    func requirementsAndCoverage() throws {
        let catalogue = try Repository.shipped()
        let flows = [Fixture.flow(1, sni: "api.example.com", server: Fixture.serverHello(.tls13)), Fixture.flow(2, proto: .udp, port: 53)]
        let assessment = SessionAssessment(
            catalogue: catalogue, flows: flows, project: Fixture.project(allowing: ["api.example.com"]),
            session: Fixture.session(), markers: [])
        #expect(assessment.requirements.map(\.requirement) == catalogue.requirements)
        let tls = try #require(assessment.requirements.first { $0.requirement.id == "O.Ntwk_2" })
        #expect(tls.coverage == CheckCoverageSummary(
            check: .tlsVersion, findingFlows: 0, satisfiedFlows: 1, unassessedFlows: 0, notApplicableFlows: 1))
        #expect(assessment.requirements.first { $0.requirement.id == "O.Ntwk_3" }?.coverage == nil)
    }

    @Test("The session is classified with the catalogue's minimum")
    func catalogueSetsThePolicy() throws {
        let strict = try RequirementCatalogue(data: CatalogueText.replacing(#""minimumVersion": "1.2""#, with: #""minimumVersion": "1.3""#))
        let flows = [Fixture.flow(1, sni: "api.example.com", server: Fixture.serverHello(.tls12))]
        let assessment = SessionAssessment(
            catalogue: strict, flows: flows, project: Fixture.project(), session: Fixture.session(), markers: [])
        #expect(assessment.findings.findings.map(\.kind) == [.weakTLSVersion])
    }
}
