import Testing
import TunnelVisionAudit
import TunnelVisionModel

/// One case of "validation changes per host": the recording mode and flows on each side, and the comparison.
struct ValidationComparisonRow: Sendable, CustomTestStringConvertible {
    let row: String
    let earlierMode: InspectionMode
    let earlier: [StoredFlow]
    let laterMode: InspectionMode
    let later: [StoredFlow]
    let expected: ValidationComparison
    var testDescription: String { row }
}

@Suite("Certificate validation changes per host")
struct ValidationComparisonTests {
    static let host = "api.example.com"
    static let untrusted = InspectionMode.validation(.untrustedIssuer)

    static func accepted(_ id: Int64) -> StoredFlow { Fixture.flow(id, status: .inspected, sni: host) }
    static func refused(_ id: Int64) -> StoredFlow {
        Fixture.flow(id, status: .notInspectable, sni: host, relay: .refused(alert: 48))
    }

    static let rows: [ValidationComparisonRow] = [
        ValidationComparisonRow(
            row: "accepted in both → same", earlierMode: untrusted, earlier: [accepted(1)], laterMode: untrusted, later: [accepted(2)],
            expected: .same(.accepted(.untrustedIssuer))),
        ValidationComparisonRow(
            row: "accepted, then refused → changed", earlierMode: untrusted, earlier: [accepted(1)],
            laterMode: untrusted, later: [refused(2)],
            expected: .changed(earlier: .accepted(.untrustedIssuer), later: .refused(.untrustedIssuer))),
        ValidationComparisonRow(
            row: "refused, then one acceptance among refusals → changed: one acceptance outweighs them",
            earlierMode: .validation(.expired), earlier: [refused(1)],
            laterMode: .validation(.expired), later: [refused(2), accepted(3), refused(4)],
            expected: .changed(earlier: .refused(.expired), later: .accepted(.expired))),
        ValidationComparisonRow(
            row: "a pinning recording before → notJudgedInEarlierSession", earlierMode: .pinning, earlier: [accepted(1)],
            laterMode: untrusted, later: [accepted(2)], expected: .notCompared(.notJudgedInEarlierSession)),
        ValidationComparisonRow(
            row: "nothing the check could look at later → notJudgedInLaterSession", earlierMode: untrusted, earlier: [refused(1)],
            laterMode: untrusted, later: [Fixture.flow(2, sni: host, relay: .closedAfterHandshake)],
            expected: .notCompared(.notJudgedInLaterSession)),
        ValidationComparisonRow(
            row: "neither a validation recording → notJudgedInEitherSession", earlierMode: .off, earlier: [accepted(1)],
            laterMode: .pinning, later: [accepted(2)], expected: .notCompared(.notJudgedInEitherSession)),
        ValidationComparisonRow(
            row: "different defects presented → differentDefects, never a change",
            earlierMode: .validation(.wrongName), earlier: [accepted(1)], laterMode: untrusted, later: [refused(2)],
            expected: .notCompared(.differentDefects(earlier: .wrongName, later: .untrustedIssuer))),
    ]

    @Test(arguments: rows)
    func comparison(_ row: ValidationComparisonRow) throws {
        let earlier = Fixture.session(id: 10, release: "2.4.0", startedAt: 0, mode: row.earlierMode)
        let later = Fixture.session(id: 11, release: "2.5.0", startedAt: 7200, mode: row.laterMode)
        let diff = try ReleaseDiff(between: later, flows: row.later, and: earlier, flows: row.earlier, project: Fixture.project())
        let domain = try #require(diff.domains.first { $0.host == Self.host })
        #expect(domain.validation == row.expected)
        #expect(diff.domainsWithValidationChange.contains(domain) == row.expected.isChange)
    }
}
