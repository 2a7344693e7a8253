import Testing
import TunnelVisionAudit
import TunnelVisionModel

/// One row of the table "The TLS version of a flow": what the flow carries and what is said.
struct TLSVersionRow: Sendable, CustomTestStringConvertible {
    let row: String
    let flow: StoredFlow
    let expected: TLSVersionAssessment
    var testDescription: String { row }
}

@Suite("TLS version of a flow")
struct TLSVersionAssessmentTests {
    static let minimum = TLSProtocolVersion.tls12
    static let unpublished = TLSProtocolVersion(0x7F1C)

    static let rows: [TLSVersionRow] = [
        TLSVersionRow(
            row: "ServerHello below the minimum → weak, serverHello",
            flow: Fixture.flow(1, server: Fixture.serverHello(.tls11), opening: .tlsHandshake),
            expected: .weak(TLSVersionObservation(version: .tls11, basis: .serverHello(helloRetry: nil)))),
        TLSVersionRow(
            row: "ServerHello at or above → acceptable, whatever the client offered",
            flow: Fixture.flow(2, server: Fixture.serverHello(.tls12, retry: true), client: Fixture.upTo(.tls10)),
            expected: .acceptable(TLSVersionObservation(version: .tls12, basis: .serverHello(helloRetry: .retryOnly)))),
        TLSVersionRow(
            row: "upstream below the minimum → weak, upstreamConnection",
            flow: Fixture.flow(3, status: .inspected, sni: "api.example.com", server: Fixture.upstream(.tls10),
                               client: Fixture.listed([.tls13, .tls12])),
            expected: .weak(TLSVersionObservation(version: .tls10, basis: .upstreamConnection))),
        TLSVersionRow(
            row: "upstream at or above, app listed published versions none below → acceptable, upstreamConnection",
            flow: Fixture.flow(4, status: .inspected, sni: "api.example.com", server: Fixture.upstream(.tls13),
                               client: Fixture.listed([.tls13, .tls12])),
            expected: .acceptable(TLSVersionObservation(version: .tls13, basis: .upstreamConnection))),
        TLSVersionRow(
            row: "upstream at or above, offer not read → appNegotiationNotObserved(notRead)",
            flow: Fixture.flow(5, status: .inspected, sni: "api.example.com", server: Fixture.upstream(.tls13)),
            expected: .notAssessed(.appNegotiationNotObserved(.notRead, upstreamVersion: .tls13))),
        TLSVersionRow(
            row: "upstream at or above, offer only a ceiling → appNegotiationNotObserved(ceilingOnly)",
            flow: Fixture.flow(6, status: .inspected, sni: "a.example.com", server: Fixture.upstream(.tls12),
                               client: Fixture.upTo(.tls12)),
            expected: .notAssessed(.appNegotiationNotObserved(.ceilingOnly(.tls12), upstreamVersion: .tls12))),
        TLSVersionRow(
            row: "upstream at or above, offer with ECH → appNegotiationNotObserved(encryptedClientHello)",
            flow: Fixture.flow(7, status: .inspected, sni: "a.example.com", server: Fixture.upstream(.tls13),
                               client: Fixture.listed([.tls13], ech: true)),
            expected: .notAssessed(.appNegotiationNotObserved(.encryptedClientHello, upstreamVersion: .tls13))),
        TLSVersionRow(
            row: "upstream at or above, offer lists a weaker version → appNegotiationNotObserved(listsWeakerVersion)",
            flow: Fixture.flow(8, status: .inspected, sni: "a.example.com", server: Fixture.upstream(.tls13),
                               client: Fixture.listed([.tls13, .tls12, .tls11])),
            expected: .notAssessed(.appNegotiationNotObserved(.listsWeakerVersion, upstreamVersion: .tls13))),
        TLSVersionRow(
            row: "upstream at or above, offer empty → appNegotiationNotObserved(listNotConclusive)",
            flow: Fixture.flow(9, status: .inspected, sni: "a.example.com", server: Fixture.upstream(.tls13),
                               client: Fixture.listed([])),
            expected: .notAssessed(.appNegotiationNotObserved(.listNotConclusive, upstreamVersion: .tls13))),
        TLSVersionRow(
            row: "upstream at or above, offer lists a draft → appNegotiationNotObserved(listNotConclusive)",
            flow: Fixture.flow(10, status: .inspected, sni: "a.example.com", server: Fixture.upstream(.tls13),
                               client: Fixture.listed([.tls13, unpublished])),
            expected: .notAssessed(.appNegotiationNotObserved(.listNotConclusive, upstreamVersion: .tls13))),
        TLSVersionRow(
            row: "a version that is not published → unrecognisedVersion",
            flow: Fixture.flow(11, server: Fixture.serverHello(unpublished)),
            expected: .notAssessed(.unrecognisedVersion(unpublished))),
        TLSVersionRow(
            row: "an alert instead of a ServerHello → serverRefused",
            flow: Fixture.flow(12, server: .refused(alert: 40), opening: .tlsHandshake),
            expected: .notAssessed(.serverRefused(alert: 40))),
        TLSVersionRow(
            row: "QUIC v1 read from the server → TLS 1.3, basis quic",
            flow: Fixture.flow(13, proto: .udp, quic: QUICReading(version: .v1, end: .server)),
            expected: .acceptable(TLSVersionObservation(version: .tls13, basis: .quic(.v1)))),
        TLSVersionRow(
            row: "QUIC v2 read from the server → TLS 1.3, basis quic",
            flow: Fixture.flow(14, proto: .udp, quic: QUICReading(version: .v2, end: .server)),
            expected: .acceptable(TLSVersionObservation(version: .tls13, basis: .quic(.v2)))),
        TLSVersionRow(
            row: "QUIC read only from the client → quicVersionOnlyProposed",
            flow: Fixture.flow(15, proto: .udp, quic: QUICReading(version: .v1, end: .client)),
            expected: .notAssessed(.quicVersionOnlyProposed(.v1))),
        TLSVersionRow(
            row: "a QUIC version not known to carry TLS 1.3 → unrecognisedQUICVersion",
            flow: Fixture.flow(16, proto: .udp, quic: QUICReading(version: QUICVersion(0xFF00_001D), end: .server)),
            expected: .notAssessed(.unrecognisedQUICVersion(QUICVersion(0xFF00_001D)))),
        TLSVersionRow(
            row: "no reading, status not plaintext → serverAnswerNotRead",
            flow: Fixture.flow(17, port: 443),
            expected: .notAssessed(.serverAnswerNotRead)),
        TLSVersionRow(
            row: "no reading, a ClientHello was read → serverAnswerNotRead",
            flow: Fixture.flow(18, port: 8443, client: Fixture.listed([.tls13])),
            expected: .notAssessed(.serverAnswerNotRead)),
        TLSVersionRow(
            row: "no reading and no sign of TLS or QUIC → notApplicable",
            flow: Fixture.flow(19, port: 80),
            expected: .notApplicable),
    ]

    @Test(arguments: rows)
    func row(_ row: TLSVersionRow) {
        #expect(TLSVersionAssessment(of: row.flow, minimum: Self.minimum) == row.expected)
    }

    @Test("An HTTP request on 443 has no TLS to judge: the port's status is not a sign")
    func httpRequestOnPort443() {
        let flow = Fixture.flow(1, port: 443, opening: .httpRequest)
        #expect(TLSVersionAssessment(of: flow, minimum: Self.minimum) == .notApplicable)
    }

    @Test("A stricter policy makes the same reading weak")
    func minimumComesFromThePolicy() {
        let flow = Fixture.flow(1, server: Fixture.serverHello(.tls12))
        #expect(TLSVersionAssessment(of: flow, minimum: .tls13)
            == .weak(TLSVersionObservation(version: .tls12, basis: .serverHello(helloRetry: nil))))
    }

    @Test("A policy refuses a minimum that is not a published version")
    func policyNeedsPublishedMinimum() {
        #expect(FindingsPolicy(minimumTLSVersion: Self.unpublished) == nil)
        #expect(FindingsPolicy(minimumTLSVersion: .tls12)?.minimumTLSVersion == .tls12)
    }
}
