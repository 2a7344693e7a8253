import Testing
import TunnelVisionAudit
import TunnelVisionModel

/// One row of the certificate validation check's table, "Whether a connection went on over a certificate made to be refused".
struct ValidationRow: Sendable, CustomTestStringConvertible {
    let row: String
    let flow: StoredFlow
    let mode: InspectionMode
    var caTrusted = true
    let expected: CertificateValidationAssessment
    var testDescription: String { row }
}

@Suite("Whether a connection went on over a certificate made to be refused")
struct CertificateValidationAssessmentTests {
    static let untrusted = InspectionMode.validation(.untrustedIssuer)
    static let wrongName = InspectionMode.validation(.wrongName)
    static let expired = InspectionMode.validation(.expired)
    static let tls = Fixture.serverHello(.tls13)

    static let rows: [ValidationRow] = [
        // no sign of TLS, or HTTP seen in the clear → not applicable
        ValidationRow(
            row: "no sign of TLS → notApplicable",
            flow: Fixture.flow(1, port: 80), mode: untrusted, expected: .notApplicable),
        ValidationRow(
            row: "an HTTP request seen in the clear on 443 → notApplicable, whatever the port's status",
            flow: Fixture.flow(2, status: .encrypted, opening: .httpRequest), mode: untrusted, expected: .notApplicable),
        // session mode off or pinning → not assessed (no defective certificate was presented)
        ValidationRow(
            row: "mode off → noDefectPresented",
            flow: Fixture.flow(3, sni: "api.example.com", opening: .tlsHandshake), mode: .off,
            expected: .notAssessed(.noDefectPresented)),
        ValidationRow(
            row: "mode pinning, inspected → noDefectPresented: the installed CA's own leaf is no defect",
            flow: Fixture.flow(4, status: .inspected, sni: "api.example.com"), mode: .pinning,
            expected: .notAssessed(.noDefectPresented)),
        // a validation mode, flow inspected → the mode's finding, under the announced name
        ValidationRow(
            row: "untrusted-issuer, inspected → accepted under the announced name",
            flow: Fixture.flow(5, status: .inspected, sni: "API.example.com"), mode: untrusted,
            expected: .accepted(.untrustedIssuer, host: "api.example.com")),
        ValidationRow(
            row: "wrong-name, inspected → accepted under the announced name, not the leaf's",
            flow: Fixture.flow(6, status: .inspected, sni: "api.example.com"), mode: wrongName,
            expected: .accepted(.wrongName, host: "api.example.com")),
        ValidationRow(
            row: "expired, inspected → accepted, also when the CA is not declared trusted",
            flow: Fixture.flow(7, status: .inspected, sni: "api.example.com"), mode: expired, caTrusted: false,
            expected: .accepted(.expired, host: "api.example.com")),
        ValidationRow(
            row: "inspected without an announced name (a DNS name only) → outcomeWithoutAnnouncedName",
            flow: Fixture.flow(8, status: .inspected, dns: ResolvedName(name: "api.example.com")), mode: untrusted,
            expected: .notAssessed(.outcomeWithoutAnnouncedName)),
        // a validation mode, the phone answered with an alert → looked at, nothing to report
        ValidationRow(
            row: "untrusted-issuer, the phone answered with an alert → refused",
            flow: Fixture.flow(9, status: .notInspectable, sni: "api.example.com", relay: .refused(alert: 48)),
            mode: untrusted, caTrusted: false, expected: .refused),
        ValidationRow(
            row: "wrong-name, an alert, CA trusted → refused",
            flow: Fixture.flow(10, status: .notInspectable, sni: "api.example.com", relay: .refused(alert: 42)),
            mode: wrongName, expected: .refused),
        ValidationRow(
            row: "expired, an alert, CA not declared trusted → refusalOfUntrustedCA: the CA may be what was refused",
            flow: Fixture.flow(11, status: .notInspectable, sni: "api.example.com", relay: .refused(alert: 48)),
            mode: expired, caTrusted: false, expected: .notAssessed(.refusalOfUntrustedCA)),
        // a validation mode, handshake done and closed without data → not assessed
        ValidationRow(
            row: "handshake done and closed without data → closedAfterHandshake",
            flow: Fixture.flow(12, sni: "api.example.com", server: tls, opening: .tlsHandshake, relay: .closedAfterHandshake),
            mode: untrusted, expected: .notAssessed(.closedAfterHandshake)),
        ValidationRow(
            row: "closed during the handshake without an alert → closedDuringHandshake",
            flow: Fixture.flow(13, sni: "api.example.com", opening: .tlsHandshake, relay: .closedDuringHandshake),
            mode: expired, expected: .notAssessed(.closedDuringHandshake)),
        ValidationRow(
            row: "the relay's or the server's side ended it before the phone answered → relayFailed",
            flow: Fixture.flow(20, sni: "api.example.com", opening: .tlsHandshake, relay: .relayFailed),
            mode: untrusted, expected: .notAssessed(.relayFailed)),
        // a validation mode, spliced (host remembered) or not a candidate → not assessed, with the relay's reason
        ValidationRow(
            row: "spliced, host remembered as refusing → notInspected(hostRemembered)",
            flow: Fixture.flow(14, status: .notInspectable, sni: "api.example.com", server: tls, relay: .spliced(.hostRemembered)),
            mode: wrongName, expected: .notAssessed(.notInspected(.hostRemembered))),
        ValidationRow(
            row: "notInspectable without an alert recorded → notInspected(hostRemembered), never refused",
            flow: Fixture.flow(15, status: .notInspectable, sni: "api.example.com"),
            mode: untrusted, expected: .notAssessed(.notInspected(.hostRemembered))),
        ValidationRow(
            row: "not a candidate: no server name → notInspected(noServerName)",
            flow: Fixture.flow(16, opening: .tlsHandshake, relay: .spliced(.noServerName)),
            mode: untrusted, expected: .notAssessed(.notInspected(.noServerName))),
        ValidationRow(
            row: "not a candidate: not TLS on 443 → notInspected(notTLS), the relay's word applies",
            flow: Fixture.flow(17, opening: .unrecognised, relay: .spliced(.notTLS)),
            mode: expired, expected: .notAssessed(.notInspected(.notTLS))),
        // QUIC → not assessed (never inspected)
        ValidationRow(
            row: "QUIC → quicNotInspected",
            flow: Fixture.flow(18, proto: .udp, sni: "api.example.com", quic: QUICReading(version: .v1, end: .server)),
            mode: untrusted, expected: .notAssessed(.quicNotInspected)),
        // TLS over TCP of which the relay recorded nothing
        ValidationRow(
            row: "TLS over TCP and nothing from the relay → noInspectionOutcome (encrypted alone is no acceptance)",
            flow: Fixture.flow(19, status: .encrypted, sni: "api.example.com", server: tls, opening: .tlsHandshake),
            mode: wrongName, expected: .notAssessed(.noInspectionOutcome)),
        // the server's own certificate did not verify: the phone was shown an untrusted issuer's leaf
        ValidationRow(
            row: "a mirror continued over, in a pinning recording → an untrusted issuer accepted",
            flow: Fixture.flow(20, status: .inspected, sni: "api.example.com", relay: .presentedMirror), mode: .pinning,
            expected: .accepted(.untrustedIssuer, host: "api.example.com")),
        ValidationRow(
            row: "a mirror refused → not assessed: the recording's defect was not what was shown",
            flow: Fixture.flow(21, status: .encrypted, sni: "api.example.com", relay: .refusedMirroredCertificate(alert: 48)),
            mode: wrongName, expected: .notAssessed(.upstreamCertificateMirrored)),
    ]

    @Test(arguments: rows)
    func row(_ row: ValidationRow) {
        let conditions = InspectionConditions(mode: row.mode, caTrusted: row.caTrusted)
        #expect(CertificateValidationAssessment(of: row.flow, conditions: conditions) == row.expected)
    }

    @Test("Each mode's acceptance is its own finding kind, of the sixth check")
    func findingsOfEachMode() {
        let flow = Fixture.flow(1, status: .inspected, sni: "api.example.com")
        let expected: [(CertificateDefect, FindingKind)] = [
            (.untrustedIssuer, .untrustedIssuerAccepted), (.wrongName, .wrongNameAccepted), (.expired, .expiredCertificateAccepted),
        ]
        for (defect, kind) in expected {
            let result = FindingsClassifier.classify(
                flows: [flow], project: Fixture.project(allowing: ["api.example.com"]),
                session: Fixture.session(mode: .validation(defect)), markers: [], policy: FindingsPolicy(minimumTLSVersion: .tls12)!)
            #expect(result.findings(of: .certificateValidation).map(\.kind) == [kind])
            #expect(result.findings(of: .certificateValidation).first?.evidence.host == "api.example.com")
            #expect(kind.check == .certificateValidation)
            // The same acceptance says nothing of pinning in that recording.
            #expect(result.findings(of: .pinning).isEmpty)
            #expect(result.pinning.unassessed.map(\.reason) == [.validationRecording])
        }
    }
}
