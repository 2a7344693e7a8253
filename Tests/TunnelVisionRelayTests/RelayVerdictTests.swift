import Testing
import TunnelVisionModel
@testable import TunnelVisionRelay

/// What the audit reads of a relayed connection, from the relay's own report through the facts the history keeps.
@Suite("The relay's report as the audit's verdict")
struct RelayVerdictTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let row: String
        var decision: RelayDecision? = .terminate(serverName: "api.acme.example")
        var outcome: RelayOutcome? = nil
        var event: RelayEvent? = nil
        let expected: RelayVerdict?
        var testDescription: String { row }
    }

    static let rows: [Row] = [
        Row(row: "inspected → no verdict: the status says it", outcome: .inspected, event: .closed, expected: nil),
        Row(row: "an alert → refused, the code kept", outcome: .notInspectable(alert: 48), expected: .refused(alert: 48)),
        Row(row: "a remembered host → spliced(hostRemembered)", decision: .splice(.hostRemembered),
            outcome: .notInspectableRemembered, expected: .spliced(.hostRemembered)),
        Row(row: "not TLS → spliced(notTLS)", decision: .splice(.notTLS), expected: .spliced(.notTLS)),
        Row(row: "no server name → spliced(noServerName)", decision: .splice(.noServerName), expected: .spliced(.noServerName)),
        Row(row: "closed after the handshake → closedAfterHandshake", event: .phoneClosedAfterHandshake, expected: .closedAfterHandshake),
        Row(row: "reset after the handshake → closedAfterHandshake", event: .phoneResetAfterHandshake, expected: .closedAfterHandshake),
        Row(row: "left during the handshake → closedDuringHandshake", event: .phoneLeftDuringHandshake, expected: .closedDuringHandshake),
        Row(row: "close_notify during the handshake → closedDuringHandshake, never refused",
            event: .phoneClosingAlertDuringHandshake(alert: 0), expected: .closedDuringHandshake),
        Row(row: "the server closed first → relayFailed", event: .serverClosedBeforePhoneData, expected: .relayFailed),
        Row(row: "handed to a plain upstream → relayFailed", event: .handedToPlainUpstream(reason: "x"), expected: .relayFailed),
        Row(row: "upstream unreachable → relayFailed", event: .upstreamUnreachable, expected: .relayFailed),
        Row(row: "still waiting → no verdict", expected: nil),
    ]

    @Test("Every reason the relay splices for is read back from the words the history stores")
    func everySpliceReasonIsKnown() throws {
        for reason in SpliceReason.allCases {
            let written = try #require(RelayDecisionKind(name: RelayDecision.splice(reason).kind.name))
            #expect(RelayVerdict(decision: written, event: nil, alert: nil) == .spliced(reason), "\(reason)")
        }
    }

    @Test(arguments: rows)
    func record(_ row: Row) {
        var report = RelayReport(
            phoneLeg: RelayPhoneLeg(
                phone: Endpoint(address: IPAddress(v4: 0x0A4D_0002), port: 50_000),
                originalDestination: Endpoint(address: IPAddress(v4: 0xC633_6414), port: 443)),
            accepted: 0)
        report.decision = row.decision
        report.outcome = row.outcome
        report.event = row.event
        #expect(report.verdict == row.expected)
    }
}
