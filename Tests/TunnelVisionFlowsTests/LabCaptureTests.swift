import Testing
import TunnelVisionFlows
import TunnelVisionModel

/// The engine on the wire lab's own captures (Tests/Captures/wire, recorded by
/// scripts/record-wire-captures from real aioquic, openssl, curl and small prelude servers).
/// tshark reads the same files the same way: check 30 compares them field by field.
@Suite struct LabCaptureTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let file: String
        let port: UInt16
        var opening: StreamOpening?
        var answer: ServerTLSAnswer
        var quic: QUICReading?
        var visibility: String
        var testDescription: String { file }
    }

    static let tls13 = ServerTLSAnswer.negotiated(TLSNegotiation(version: .tls13, cipherSuite: CipherSuite(0x1302)))
    static let tls12 = ServerTLSAnswer.negotiated(TLSNegotiation(version: .tls12, cipherSuite: CipherSuite(0xC02C)))

    static let cases: [Case] = [
        // QUIC off 443, three versions: each opened because its tag verified; the server's
        // Initial gives the suite. Draft-29 is read yet stays an unknown version.
        Case(file: "quic-v1-port-4433.pcap", port: 4433, answer: tls13, quic: QUICReading(version: .v1, end: .server),
             visibility: "encryptedInHandshake"),
        Case(file: "quic-v2-port-8443.pcap", port: 8443, answer: tls13, quic: QUICReading(version: .v2, end: .server),
             visibility: "encryptedInHandshake"),
        Case(file: "quic-draft-29-port-784.pcap", port: 784, answer: tls13,
             quic: QUICReading(version: QUICVersion(0xFF00_001D), end: .server), visibility: "encryptedInHandshake"),
        Case(file: "tls13-port-4443.pcap", port: 4443, opening: .tlsHandshake, answer: tls13, visibility: "encryptedInHandshake"),
        Case(file: "tls12-port-4443.pcap", port: 4443, opening: .tlsHandshake, answer: tls12, visibility: "presented"),
        // The SYN-ACK still proves where the phone's stream began.
        Case(file: "tls13-without-syn.pcap", port: 4443, opening: .tlsHandshake, answer: tls13, visibility: "encryptedInHandshake"),
        // No handshake at all: the ClientHello names itself, the opening stays unproven.
        Case(file: "tls13-without-handshake.pcap", port: 4443, opening: nil, answer: tls13, visibility: "encryptedInHandshake"),
        // TLS after a cleartext start: the readings are the handshake's, the opening what it was.
        Case(file: "starttls-smtp.pcap", port: 587, opening: .unrecognised, answer: tls13, visibility: "encryptedInHandshake"),
        Case(file: "starttls-imap.pcap", port: 143, opening: .unrecognised, answer: tls13, visibility: "encryptedInHandshake"),
        Case(file: "starttls-pop3.pcap", port: 110, opening: .unrecognised, answer: tls13, visibility: "encryptedInHandshake"),
        Case(file: "starttls-ftp.pcap", port: 21, opening: .unrecognised, answer: tls13, visibility: "encryptedInHandshake"),
        Case(file: "starttls-postgres.pcap", port: 5432, opening: .unrecognised, answer: tls13, visibility: "encryptedInHandshake"),
        Case(file: "starttls-mysql.pcap", port: 3306, opening: .unrecognised, answer: tls13, visibility: "encryptedInHandshake"),
        Case(file: "connect-proxy.pcap", port: 3128, opening: .httpRequest, answer: tls13, visibility: "encryptedInHandshake"),
        Case(file: "socks5-proxy.pcap", port: 1080, opening: .unrecognised, answer: tls13, visibility: "encryptedInHandshake"),
        Case(file: "socks5-password-proxy.pcap", port: 1080, opening: .unrecognised, answer: tls13, visibility: "encryptedInHandshake"),
        Case(file: "socks4a-proxy.pcap", port: 1080, opening: .unrecognised, answer: tls13, visibility: "encryptedInHandshake"),
        Case(file: "socks4-proxy.pcap", port: 1080, opening: .unrecognised, answer: tls13, visibility: "encryptedInHandshake"),
        // Resumed sessions: no certificate was sent, because the session was resumed.
        Case(file: "tls13-resumed.pcap", port: 4444, opening: .tlsHandshake, answer: tls13, visibility: "notSent"),
        Case(file: "tls13-early-data.pcap", port: 4444, opening: .tlsHandshake, answer: tls13, visibility: "notSent"),
        Case(file: "tls12-resumed-ticket.pcap", port: 4444, opening: .tlsHandshake, answer: tls12, visibility: "notSent"),
        Case(file: "tls12-resumed-session-id.pcap", port: 4444, opening: .tlsHandshake, answer: tls12, visibility: "notSent"),
    ]

    @Test(arguments: cases)
    func readsTheHandshake(_ expected: Case) throws {
        let reading = try CaptureReading(lab: expected.file)
        let flow = try #require(reading.flow(toPort: expected.port))
        #expect(flow.sni == "wire.test")
        #expect(flow.clientTLS != nil)
        #expect(flow.serverTLS == expected.answer)
        #expect(flow.streamOpening == expected.opening)
        #expect(flow.quic == expected.quic)
        #expect(flow.certificateVisibility.name == expected.visibility)
        if expected.visibility == "notSent" { #expect(flow.serverCertificates == .notSent(.resumedSession)) }
    }

    /// curl --socks5-hostname and --socks4a hand the proxy the name; --socks4 only an address.
    @Test(arguments: [("socks5-proxy.pcap", "wire.test" as String?), ("socks5-password-proxy.pcap", "wire.test"),
                      ("socks4a-proxy.pcap", "wire.test"), ("socks4-proxy.pcap", nil)])
    func aSOCKSRequestKeepsTheDomainItNamed(_ file: String, host: String?) throws {
        let flow = try #require(try CaptureReading(lab: file).flow(toPort: 1080))
        #expect(flow.socksHost == host)
        #expect(flow.name?.origin == .sni)  // the ClientHello's own name comes first
        var unnamed = flow
        unnamed.sni = nil
        #expect(unnamed.name.map { FlowName(text: $0.text, origin: $0.origin) } == host.map { FlowName(text: $0, origin: .socksRequest) })
    }

    /// openssl s_client -early_data against openssl s_server: accepted (the client says so; the
    /// wire cannot), refused by a full handshake, refused by a HelloRetryRequest, and a ticket
    /// that allows none, so that none is offered.
    @Test(arguments: [
        ("tls13-early-data.pcap", UInt16(4444), EarlyDataReading(wasSent: true, serverAnswer: .notVisible) as EarlyDataReading?),
        ("tls13-early-data-full-handshake.pcap", 4446, EarlyDataReading(wasSent: true, serverAnswer: .refusedByServerHello)),
        ("tls13-early-data-retry.pcap", 4447, EarlyDataReading(wasSent: true, serverAnswer: .refusedByHelloRetryRequest)),
        ("tls13-early-data-not-allowed.pcap", 4445, nil),
        ("tls13-resumed.pcap", 4444, nil),
    ])
    func earlyDataIsReadAsFarAsTheWireShowsIt(_ file: String, port: UInt16, expected: EarlyDataReading?) throws {
        let flow = try #require(try CaptureReading(lab: file).flow(toPort: port))
        #expect(flow.earlyData == expected)
        #expect(flow.clientTLS?.offersEarlyData == (expected != nil))
    }

    /// aioquic resuming with a ticket and writing stream data before its handshake completes.
    @Test func quicZeroRTTPacketsAreEarlyDataSent() throws {
        let flows = try CaptureReading(lab: "quic-early-data-port-4434.pcap").flows.filter { $0.key.endpointB.port == 4434 || $0.key.endpointA.port == 4434 }
        #expect(flows.count == 2)
        #expect(flows.filter { $0.earlyData == nil }.count == 1)  // the first connection, for the ticket
        #expect(flows.filter { $0.earlyData == EarlyDataReading(wasSent: true, serverAnswer: .notVisible) }.count == 1)
    }

    @Test func aDraftReadDoesNotRaiseTheFlowToEncrypted() throws {
        let draft = try #require(try CaptureReading(lab: "quic-draft-29-port-784.pcap").flow(toPort: 784))
        let v1 = try #require(try CaptureReading(lab: "quic-v1-port-4433.pcap").flow(toPort: 4433))
        #expect(draft.tlsStatus == .plaintext)
        #expect(v1.tlsStatus == .encrypted)
    }
}
