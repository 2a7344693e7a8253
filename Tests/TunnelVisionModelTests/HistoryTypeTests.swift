import Foundation
import Testing
import TunnelVisionModel

@Suite struct AddressTests {
    @Test(arguments: [
        ("10.77.0.2", "10.77.0.2"),
        ("2001:db8::1", "2001:db8::1"),
        ("2001:DB8:0:0:0:0:0:1", "2001:db8::1"),
        ("::", "::"),
        ("::1", "::1"),
        ("fe80::1:0:0:1", "fe80::1:0:0:1"),
        ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
        ("::ffff:10.0.0.1", "::ffff:a00:1"),
    ])
    func parsesAndPrintsCanonically(input: String, printed: String) throws {
        #expect(try #require(IPAddress(input)).description == printed)
    }

    @Test(arguments: ["", "10.0.0", "256.1.1.1", "1::2::3", "1:2:3:4:5:6:7:8:9", "g::1", "10.0.0.01x"])
    func refusesWhatIsNotAnAddress(input: String) {
        #expect(IPAddress(input) == nil)
    }

    @Test func bytesRoundTrip() throws {
        let v6 = try #require(IPAddress("2001:db8::443"))
        #expect(IPAddress(bytes: v6.bytes) == v6)
        #expect(IPAddress(bytes: [10, 77, 0, 2]) == IPAddress("10.77.0.2"))
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)
    }

    @Test(arguments: [
        ("10.77.0.0/24", "10.77.0.200", true), ("10.77.0.0/24", "10.77.1.1", false),
        ("fd00:77::/64", "fd00:77::5", true), ("fd00:77::/64", "fd00:78::5", false),
        ("0.0.0.0/0", "8.8.8.8", true), ("10.77.0.0/24", "fd00::1", false),
        ("fd00::/8", "fdff::1", true), ("2001:db8::/96", "2001:db8::1:2", true),
    ])
    func networksContainTheirAddresses(network: String, address: String, expected: Bool) throws {
        #expect(try #require(IPNetwork(network)).contains(try #require(IPAddress(address))) == expected)
    }

    @Test func aFlowKeyIsTheSameFromEitherEnd() {
        let phone = Endpoint(address: IPAddress("10.77.0.2")!, port: 50_000)
        let server = Endpoint(address: IPAddress("10.0.0.1")!, port: 443)
        #expect(FlowKey(proto: .tcp, phone, server) == FlowKey(proto: .tcp, server, phone))
        #expect(FlowKey(proto: .tcp, phone, server).endpointA == server)
        #expect(FlowKey(proto: .tcp, phone, server).peer(of: phone) == server)
    }
}

@Suite struct FlowReadingTests {
    let key = FlowKey(proto: .tcp, Endpoint(address: IPAddress(v4: 1), port: 1), Endpoint(address: IPAddress(v4: 2), port: 443))

    @Test func theNameIsTheSNIThenDNSThenNone() {
        var flow = FlowState(key: key, firstSeen: Instant(timeIntervalSince1970: 0))
        #expect(flow.name == nil)
        flow.resolvedName = ResolvedName(name: "cdn.acme.de", otherNames: ["img.acme.de"])
        #expect(flow.name == FlowName(text: "cdn.acme.de", origin: .dns, otherCandidates: ["img.acme.de"]))
        flow.sni = "api.acme.de"
        #expect(flow.name == FlowName(text: "api.acme.de", origin: .sni))
        flow.sni = ""
        #expect(flow.name?.origin == .dns)
    }

    @Test func certificateVisibilityFollowsTheReadings() {
        var flow = FlowState(key: key, firstSeen: Instant(timeIntervalSince1970: 0))
        #expect(flow.certificateVisibility == .notRead)
        flow.serverTLS = .refused(alert: 40)
        #expect(flow.certificateVisibility == .noNegotiation)
        flow.serverTLS = .negotiated(TLSNegotiation(version: .tls13, cipherSuite: CipherSuite(0x1301)))
        #expect(flow.certificateVisibility == .encryptedInHandshake)
        flow.serverTLS = .negotiated(TLSNegotiation(version: .tls12, cipherSuite: CipherSuite(0xC02F), source: .upstreamConnection))
        #expect(flow.certificateVisibility == .replacedByInspection)
        flow.serverTLS = .negotiated(TLSNegotiation(version: .tls12, cipherSuite: CipherSuite(0xC02F)))
        #expect(flow.certificateVisibility == .notRead)
        flow.serverCertificates = .notSent(.resumedSession)
        #expect(flow.certificateVisibility == .notSent(.resumedSession))
        var quic = FlowState(key: key, firstSeen: Instant(timeIntervalSince1970: 0))
        quic.quic = QUICReading(version: .v1, end: .server)
        #expect(quic.certificateVisibility == .encryptedInHandshake)
    }

    @Test(arguments: [
        (TransportProtocol.tcp, UInt16(443), TLSInspectionStatus.encrypted), (.tcp, 80, .plaintext),
        (.tcp, 8443, .plaintext), (.udp, 443, .plaintext), (.icmp, 0, .plaintext),
    ])
    func statusIsBornFromThePort(proto: TransportProtocol, port: UInt16, status: TLSInspectionStatus) {
        #expect(TLSInspectionStatus.born(proto: proto, remotePort: port) == status)
    }

    @Test func statusIsNeverLowered() {
        #expect(TLSInspectionStatus.notInspectable.raised(to: .encrypted) == .notInspectable)
        #expect(TLSInspectionStatus.plaintext.raised(to: .encrypted) == .encrypted)
    }

    @Test(arguments: [
        (UInt16(0x0303), "TLS 1.2", "TLS1.2", true), (0x0300, "SSL 3.0", "SSL3.0", true),
        (0x7F1C, nil, "0x7F1C", false), (0xFB1A, nil, "0xFB1A", false),
    ])
    func versionsHaveNamesOnlyWhenPublished(wire: UInt16, name: String?, compact: String, published: Bool) {
        let version = TLSProtocolVersion(wire)
        #expect(version.name == name)
        #expect(version.compactText == compact)
        #expect(version.isPublished == published)
    }

    @Test func greaseValuesAreRecognised() {
        #expect(TLSProtocolVersion.isGREASE(0x0A0A) && TLSProtocolVersion.isGREASE(0xFAFA))
        #expect(!TLSProtocolVersion.isGREASE(0x0A1A) && !TLSProtocolVersion.isGREASE(0x0303))
        #expect(QUICVersion.v2.hex == "0x6B3343CF" && CipherSuite(0xC02F).hex == "0xC02F")
    }

    @Test func nanosecondInstantsRoundTrip() {
        let ns: Int64 = 1_790_000_000_123_456_789
        let back = Date(nanosecondsSinceEpoch: ns).nanosecondsSinceEpoch
        #expect(abs(back - ns) < 1_000)
    }
}
