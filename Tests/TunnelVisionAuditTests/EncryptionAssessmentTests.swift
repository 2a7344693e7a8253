import Testing
import TunnelVisionAudit
import TunnelVisionModel

/// One row of the table "Whether a flow was encrypted".
struct EncryptionRow: Sendable, CustomTestStringConvertible {
    let row: String
    let flow: StoredFlow
    var gatewayResolvers: [IPAddress] = []
    let expected: EncryptionAssessment
    var testDescription: String { row }
}

@Suite("Whether a flow was encrypted")
struct EncryptionAssessmentTests {
    static let rows: [EncryptionRow] = [
        EncryptionRow(
            row: "HTTP request on port 80 → cleartext(.http)",
            flow: Fixture.flow(1, port: 80, opening: .httpRequest), expected: .cleartext(.http)),
        EncryptionRow(
            row: "HTTP request on port 443, status encrypted → cleartext(.http)",
            flow: Fixture.flow(2, port: 443, status: .encrypted, opening: .httpRequest), expected: .cleartext(.http)),
        EncryptionRow(
            row: "TCP opened with a TLS handshake → encrypted(.tls)",
            flow: Fixture.flow(3, port: 8443, opening: .tlsHandshake), expected: .encrypted(.tls)),
        EncryptionRow(
            row: "TCP with the client's offer only → encrypted(.tls)",
            flow: Fixture.flow(4, port: 5223, client: Fixture.listed([.tls13])), expected: .encrypted(.tls)),
        EncryptionRow(
            row: "TCP with the server's answer only → encrypted(.tls)",
            flow: Fixture.flow(5, port: 443, server: Fixture.serverHello(.tls12)), expected: .encrypted(.tls)),
        EncryptionRow(
            row: "TCP with an inspection outcome only → encrypted(.tls)",
            flow: Fixture.flow(6, port: 443, status: .notInspectable), expected: .encrypted(.tls)),
        EncryptionRow(
            row: "TCP opened with something else → unrecognisedOpening",
            flow: Fixture.flow(7, port: 25, opening: .unrecognised), expected: .notAssessed(.unrecognisedOpening)),
        EncryptionRow(
            row: "TCP 443 with no opening read: its encrypted is the port's → openingNotRead",
            flow: Fixture.flow(8, port: 443, status: .encrypted), expected: .notAssessed(.openingNotRead)),
        EncryptionRow(
            row: "TCP 80 with no opening read → openingNotRead",
            flow: Fixture.flow(9, port: 80), expected: .notAssessed(.openingNotRead)),
        EncryptionRow(
            row: "UDP with QUIC v1 from the server → encrypted(.quic)",
            flow: Fixture.flow(10, proto: .udp, quic: QUICReading(version: .v1, end: .server)), expected: .encrypted(.quic)),
        EncryptionRow(
            row: "UDP with QUIC v2 from the client → encrypted(.quic)",
            flow: Fixture.flow(11, proto: .udp, quic: QUICReading(version: .v2, end: .client)), expected: .encrypted(.quic)),
        EncryptionRow(
            row: "UDP with another QUIC version → unrecognisedQUICVersion",
            flow: Fixture.flow(12, proto: .udp, quic: QUICReading(version: QUICVersion(0x5154_3035), end: .server)),
            expected: .notAssessed(.unrecognisedQUICVersion(QUICVersion(0x5154_3035)))),
        EncryptionRow(
            row: "UDP 443 with no QUIC reading → datagramsNotRead",
            flow: Fixture.flow(13, proto: .udp, port: 443), expected: .notAssessed(.datagramsNotRead)),
        EncryptionRow(
            row: "DNS on UDP 53 to a resolver other than the gateway's → cleartext(.dns)",
            flow: Fixture.flow(14, proto: .udp, port: 53), gatewayResolvers: [Fixture.remoteAddress(99)],
            expected: .cleartext(.dns)),
        EncryptionRow(
            row: "DNS on UDP 53 with no gateway resolver named → cleartext(.dns)",
            flow: Fixture.flow(14, proto: .udp, port: 53), expected: .cleartext(.dns)),
        EncryptionRow(
            row: "DNS on UDP 53 to the gateway's resolver → notApplicable, the lab's own",
            flow: Fixture.flow(17, proto: .udp, port: 53), gatewayResolvers: [Fixture.remoteAddress(17)],
            expected: .notApplicable),
        EncryptionRow(
            row: "DNS on TCP 53 to the gateway's resolver → notApplicable",
            flow: Fixture.flow(18, port: 53, opening: .unrecognised), gatewayResolvers: [Fixture.remoteAddress(18)],
            expected: .notApplicable),
        EncryptionRow(
            row: "UDP 5353 to the gateway's resolver address is no DNS exchange with it → datagramsNotRead",
            flow: Fixture.flow(19, proto: .udp, port: 5353), gatewayResolvers: [Fixture.remoteAddress(19)],
            expected: .notAssessed(.datagramsNotRead)),
        EncryptionRow(
            row: "ICMP, neither TCP nor UDP → notApplicable",
            flow: Fixture.flow(15, proto: .icmp, port: 0), expected: .notApplicable),
        EncryptionRow(
            row: "another protocol number → notApplicable",
            flow: Fixture.flow(16, proto: TransportProtocol(rawValue: 50), port: 0), expected: .notApplicable),
    ]

    @Test(arguments: rows)
    func row(_ row: EncryptionRow) {
        #expect(EncryptionAssessment(of: row.flow, gatewayResolvers: row.gatewayResolvers) == row.expected)
    }
}
