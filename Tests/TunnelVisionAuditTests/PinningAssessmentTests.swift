import Testing
import TunnelVisionAudit
import TunnelVisionModel

/// One row of the table "Whether the app pins".
struct PinningRow: Sendable, CustomTestStringConvertible {
    let row: String
    let flow: StoredFlow
    let inspection: Bool
    let caTrusted: Bool
    var mode: InspectionMode? = nil
    let expected: PinningAssessment
    var testDescription: String { row }
}

@Suite("Whether the app pins")
struct PinningAssessmentTests {
    static let rows: [PinningRow] = [
        PinningRow(
            row: "no outcome and no sign of TLS or QUIC → notApplicable",
            flow: Fixture.flow(1, port: 80), inspection: true, caTrusted: true, expected: .notApplicable),
        PinningRow(
            row: "an HTTP request seen in the clear on 443 → notApplicable, whatever the port's status",
            flow: Fixture.flow(2, port: 443, status: .encrypted, opening: .httpRequest),
            inspection: true, caTrusted: true, expected: .notApplicable),
        PinningRow(
            row: "no sign of TLS, inspection off: not applicable comes before the conditions",
            flow: Fixture.flow(3, proto: .udp, port: 53), inspection: false, caTrusted: false, expected: .notApplicable),
        PinningRow(
            row: "anything else with inspection off → inspectionOff",
            flow: Fixture.flow(4, sni: "api.example.com", opening: .tlsHandshake),
            inspection: false, caTrusted: true, expected: .notAssessed(.inspectionOff)),
        PinningRow(
            row: "inspected in a session declared without inspection → inspectionOff, not reported",
            flow: Fixture.flow(5, status: .inspected, sni: "api.example.com"),
            inspection: false, caTrusted: false, expected: .notAssessed(.inspectionOff)),
        PinningRow(
            row: "inspected in a validation recording → validationRecording: the certificate was meant to be refused",
            flow: Fixture.flow(12, status: .inspected, sni: "api.example.com"),
            inspection: true, caTrusted: true, mode: .validation(.wrongName), expected: .notAssessed(.validationRecording)),
        PinningRow(
            row: "refused in a validation recording → validationRecording, never observed",
            flow: Fixture.flow(13, status: .notInspectable, sni: "api.example.com", relay: .refused(alert: 48)),
            inspection: true, caTrusted: false, mode: .validation(.untrustedIssuer), expected: .notAssessed(.validationRecording)),
        PinningRow(
            row: "anything else with the CA not trusted → caNotTrusted",
            flow: Fixture.flow(6, status: .notInspectable, sni: "api.example.com"),
            inspection: true, caTrusted: false, expected: .notAssessed(.caNotTrusted)),
        PinningRow(
            row: "inspected with an announced name → absent under that name",
            flow: Fixture.flow(7, status: .inspected, sni: "API.example.com"),
            inspection: true, caTrusted: true, expected: .absent(host: "api.example.com")),
        PinningRow(
            row: "notInspectable with an announced name → observed under that name",
            flow: Fixture.flow(8, status: .notInspectable, sni: "bank.example.com"),
            inspection: true, caTrusted: true, expected: .observed(host: "bank.example.com")),
        PinningRow(
            row: "an outcome without an announced name (a DNS name only) → outcomeWithoutAnnouncedName",
            flow: Fixture.flow(9, status: .inspected, dns: ResolvedName(name: "api.example.com")),
            inspection: true, caTrusted: true, expected: .notAssessed(.outcomeWithoutAnnouncedName)),
        PinningRow(
            row: "a QUIC reading and no outcome → quicNotInspected",
            flow: Fixture.flow(10, proto: .udp, sni: "api.example.com", quic: QUICReading(version: .v1, end: .server)),
            inspection: true, caTrusted: true, expected: .notAssessed(.quicNotInspected)),
        PinningRow(
            row: "TLS over TCP and no outcome → noInspectionOutcome (encrypted alone is no acceptance)",
            flow: Fixture.flow(11, status: .encrypted, sni: "api.example.com", server: Fixture.serverHello(.tls13), opening: .tlsHandshake),
            inspection: true, caTrusted: true, expected: .notAssessed(.noInspectionOutcome)),
        PinningRow(
            row: "a mirror of a server that did not verify, continued over → says nothing of pinning",
            flow: Fixture.flow(12, status: .inspected, sni: "api.example.com", relay: .presentedMirror),
            inspection: true, caTrusted: true, expected: .notAssessed(.upstreamCertificateMirrored)),
        PinningRow(
            row: "a mirror refused → no pinningObserved",
            flow: Fixture.flow(13, status: .encrypted, sni: "api.example.com", relay: .refusedMirroredCertificate(alert: 48)),
            inspection: true, caTrusted: true, expected: .notAssessed(.upstreamCertificateMirrored)),
    ]

    @Test(arguments: rows)
    func row(_ row: PinningRow) {
        let conditions = InspectionConditions(mode: row.mode ?? (row.inspection ? .pinning : .off), caTrusted: row.caTrusted)
        #expect(PinningAssessment(of: row.flow, conditions: conditions) == row.expected)
    }
}
