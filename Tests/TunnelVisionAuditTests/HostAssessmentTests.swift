import Testing
import TunnelVisionAudit
import TunnelVisionModel

/// One row of the table "Where a flow went".
struct HostRow: Sendable, CustomTestStringConvertible {
    let row: String
    let flow: StoredFlow
    let allowlist: [String]
    var gatewayResolvers: [IPAddress] = []
    let expected: HostAssessment
    var testDescription: String { row }
}

@Suite("Where a flow went")
struct HostAssessmentTests {
    static let allowlist = ["api.example.com", "*.cdn.example.net"]

    static let rows: [HostRow] = [
        HostRow(
            row: "no name, no ClientHello read → unnamed(noClientHelloRead)",
            flow: Fixture.flow(1), allowlist: allowlist, expected: .unnamed(.noClientHelloRead)),
        HostRow(
            row: "no name, a ClientHello that announced none → unnamed(serverNameNotAnnounced)",
            flow: Fixture.flow(2, client: Fixture.listed([.tls13])), allowlist: allowlist,
            expected: .unnamed(.serverNameNotAnnounced)),
        HostRow(
            row: "no name, a ClientHello without a name and with ECH → unnamed(encryptedClientHello)",
            flow: Fixture.flow(3, client: Fixture.listed([.tls13], ech: true)), allowlist: allowlist,
            expected: .unnamed(.encryptedClientHello)),
        HostRow(
            row: "a name and an empty allowlist → notAssessed(allowlistEmpty)",
            flow: Fixture.flow(4, sni: "api.example.com"), allowlist: [], expected: .notAssessed(.allowlistEmpty)),
        HostRow(
            row: "an announced name the allowlist covers → allowed",
            flow: Fixture.flow(5, sni: "img.cdn.example.net"), allowlist: allowlist, expected: .allowed),
        HostRow(
            row: "an announced name it does not cover → notInAllowlist, normalised",
            flow: Fixture.flow(6, sni: "Tracker.Example.ORG."), allowlist: allowlist,
            expected: .notInAllowlist(host: "tracker.example.org")),
        HostRow(
            row: "an announced name is never second-guessed by DNS candidates → allowed",
            flow: Fixture.flow(7, sni: "api.example.com", dns: ResolvedName(name: "tracker.example.org", otherNames: ["ads.example.org"])),
            allowlist: allowlist, expected: .allowed),
        HostRow(
            row: "a DNS name, it and every other candidate covered → allowed",
            flow: Fixture.flow(8, dns: ResolvedName(name: "api.example.com", otherNames: ["a.cdn.example.net"])),
            allowlist: allowlist, expected: .allowed),
        HostRow(
            row: "a DNS name, neither it nor any other candidate covered → notInAllowlist under the attributed name",
            flow: Fixture.flow(9, dns: ResolvedName(name: "ads.example.org", otherNames: ["tracker.example.org"])),
            allowlist: allowlist, expected: .notInAllowlist(host: "ads.example.org")),
        HostRow(
            row: "a DNS name covered, another candidate not → candidatesDisagree(attributedNameAllowed: true)",
            flow: Fixture.flow(10, dns: ResolvedName(name: "api.example.com", otherNames: ["tracker.example.org"])),
            allowlist: allowlist, expected: .notAssessed(.candidatesDisagree(attributedNameAllowed: true))),
        HostRow(
            row: "a DNS name not covered, another candidate covered → candidatesDisagree(attributedNameAllowed: false)",
            flow: Fixture.flow(11, dns: ResolvedName(name: "tracker.example.org", otherNames: ["api.example.com"])),
            allowlist: allowlist, expected: .notAssessed(.candidatesDisagree(attributedNameAllowed: false))),
        HostRow(
            row: "DNS on UDP 53 with the gateway's resolver → notAssessed(gatewayResolver)",
            flow: Fixture.flow(12, proto: .udp, port: 53), allowlist: allowlist, gatewayResolvers: [Fixture.remoteAddress(12)],
            expected: .notAssessed(.gatewayResolver)),
        HostRow(
            row: "DNS on TCP 53 with the gateway's resolver, allowlist empty → notAssessed(gatewayResolver)",
            flow: Fixture.flow(13, port: 53), allowlist: [], gatewayResolvers: [Fixture.remoteAddress(13)],
            expected: .notAssessed(.gatewayResolver)),
        HostRow(
            row: "unnamed DNS on UDP 53 with another resolver → unnamed(dnsToOtherResolver)",
            flow: Fixture.flow(14, proto: .udp, port: 53), allowlist: allowlist, gatewayResolvers: [Fixture.remoteAddress(99)],
            expected: .unnamed(.dnsToOtherResolver)),
        HostRow(
            row: "another port on the gateway's resolver address is judged as any flow → unnamed(noClientHelloRead)",
            flow: Fixture.flow(15, port: 443), allowlist: allowlist, gatewayResolvers: [Fixture.remoteAddress(15)],
            expected: .unnamed(.noClientHelloRead)),
    ]

    @Test(arguments: rows)
    func row(_ row: HostRow) {
        #expect(HostAssessment(of: row.flow, project: Fixture.project(allowing: row.allowlist), gatewayResolvers: row.gatewayResolvers) == row.expected)
    }

    @Test("An unnamed flow stays a finding when the allowlist is empty")
    func unnamedWithEmptyAllowlist() {
        #expect(HostAssessment(of: Fixture.flow(1), project: Fixture.project()) == .unnamed(.noClientHelloRead))
    }
}
