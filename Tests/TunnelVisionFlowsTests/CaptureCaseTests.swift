import Foundation
import Testing
import TunnelVisionFlows
import TunnelVisionImport
import TunnelVisionModel

/// What the engine must read from the real captures (SOURCES.md says what each covers). Values
/// were cross-read with tshark; where tshark misreads, the case says so.
@Suite(.enabled(if: CaptureReading.externalIsPresent, "skipped extra: the external captures are absent"))
struct CaptureCaseTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let file: String
        let port: UInt16
        var sni: String?
        var offer: ClientTLSOffer?
        var answer: ServerTLSAnswer?
        var opening: StreamOpening?
        var quic: QUICReading?
        var visibility: String?
        var testDescription: String { file }
    }

    static let tls13 = TLSProtocolVersion.tls13, tls12 = TLSProtocolVersion.tls12

    static let cases: [Case] = [
        Case(file: "arkime/tls-split-client-hello.pcap", port: 443, sni: "clients2.google.com",
             offer: ClientTLSOffer(versionsForm: .listed, versions: [tls13, tls12], applicationProtocols: ["h2", "http/1.1"],
                                   droppedIdentifiers: 1, hasEncryptedClientHello: true),
             answer: .negotiated(TLSNegotiation(version: tls13, cipherSuite: CipherSuite(0x1301))),
             opening: .tlsHandshake, visibility: "encryptedInHandshake"),
        // The capture ends before the real ServerHello (tshark: ClientHello, the retry's random,
        // ClientHello again): the reading is the retry's alone.
        Case(file: "zeek/hrr.pcap", port: 443,
             answer: .negotiated(TLSNegotiation(version: tls13, cipherSuite: CipherSuite(0x1302), helloRetry: .retryOnly)),
             opening: .tlsHandshake),
        Case(file: "zeek/tls-1.2-handshake-failure.pcap", port: 443, answer: .refused(alert: 40), opening: .tlsHandshake,
             visibility: "noNegotiation"),
        Case(file: "nDPI/tls_alert.pcap", port: 443, sni: "www.google-analytics.com", answer: .refused(alert: 70), opening: .tlsHandshake),
        Case(file: "arkime/openssl-ssl3.pcap", port: 443, offer: ClientTLSOffer(versionsForm: .upTo, versions: [.ssl3]),
             answer: .negotiated(TLSNegotiation(version: .ssl3, cipherSuite: CipherSuite(0xC011))), opening: .tlsHandshake,
             visibility: "presented"),
        Case(file: "zeek/tls13draft23-chrome67.0.3368.0-canary.pcap", port: 443, sni: "tls13.crypto.mozilla.org",
             answer: .negotiated(TLSNegotiation(version: TLSProtocolVersion(0x7F17), cipherSuite: CipherSuite(0x1301))),
             opening: .tlsHandshake),
        Case(file: "nDPI/tls_2_reasms.pcapng", port: 443, sni: "i.instagram.com",
             answer: .negotiated(TLSNegotiation(version: TLSProtocolVersion(0xFB1A), cipherSuite: CipherSuite(0x1301))),
             opening: .tlsHandshake),
        // The phone's SYN is missing: the SYN-ACK names the stream start; a ClientHello segment is missing.
        Case(file: "nDPI/tls_missing_ch_frag.pcap", port: 443,
             answer: .negotiated(TLSNegotiation(version: tls13, cipherSuite: CipherSuite(0x1302))), opening: .tlsHandshake),
        // tshark is wrong here: it decodes port 80 as HTTP and never sees this TLS 1.2 handshake.
        Case(file: "nDPI/tls_port_80.pcapng", port: 80, offer: ClientTLSOffer(versionsForm: .upTo, versions: [tls12]),
             answer: .negotiated(TLSNegotiation(version: tls12, cipherSuite: CipherSuite(0xC02C))), opening: .tlsHandshake),
        Case(file: "zeek/ssl-v2.pcap", port: 443, offer: ClientTLSOffer(versionsForm: .upTo, versions: [TLSProtocolVersion(0x0002)]),
             opening: .unrecognised),
        Case(file: "suricata-verify/sslv2-tls-upgrade-01/ssl-v2-s1.pcap", port: 443,
             offer: ClientTLSOffer(versionsForm: .upTo, versions: [.tls10]),
             answer: .negotiated(TLSNegotiation(version: .tls10, cipherSuite: CipherSuite(0x0039))), opening: .unrecognised),
        Case(file: "suricata-verify/quic-frag/input.pcap", port: 443, sni: "token.services.mozilla.com",
             offer: ClientTLSOffer(versionsForm: .listed, versions: [tls13], applicationProtocols: ["h3"], hasEncryptedClientHello: true),
             quic: QUICReading(version: .v1, end: .server), visibility: "encryptedInHandshake"),
        Case(file: "suricata-verify/quic-frag-unordered/input.pcap", port: 443, sni: "mastodon.social",
             quic: QUICReading(version: .v1, end: .server)),
        Case(file: "suricata-verify/quic-retry/input.pcap", port: 443, sni: "www.gravatar.com", quic: QUICReading(version: .v1, end: .server)),
        Case(file: "zeek/quic-multiple-initial-fragmented-crypto.pcap", port: 443, sni: "googleads.g.doubleclick.net",
             quic: QUICReading(version: .v1, end: .server)),
        Case(file: "zeek/quic-decrypt-fail-google-de-51833.pcap", port: 443, sni: "www.google.de", quic: QUICReading(version: .v1, end: .server)),
        Case(file: "nDPI/quic_frags_different_dcid.pcapng", port: 443, sni: "cdnjs.cloudflare.com", quic: QUICReading(version: .v1, end: .server)),
        Case(file: "zeek/quicv2-http3-443.pcap", port: 443,
             offer: ClientTLSOffer(versionsForm: .listed, versions: [tls13], applicationProtocols: ["h3"]),
             quic: QUICReading(version: .v2, end: .server)),
        // tshark is wrong here: it does not decrypt the client's v1 Initial after Version Negotiation.
        Case(file: "tcpdump/quic_vn.pcap", port: 443, sni: "localhost",
             offer: ClientTLSOffer(versionsForm: .listed, versions: [tls13], applicationProtocols: ["h3"], droppedIdentifiers: 1),
             // The client opened with a reserved version (RFC 9000 § 15) before the negotiation.
             quic: QUICReading(version: .v1, end: .server, firstVersion: QUICVersion(0x1A2A_3A4A))),
        // QUIC on other ports and drafts, opened because their tags verify; the server's
        // Initial gives the negotiated suite. tshark agrees (check 30).
        Case(file: "nDPI/quic-29.pcap", port: 443, sni: "localhost",
             answer: .negotiated(TLSNegotiation(version: tls13, cipherSuite: CipherSuite(0x1303), helloRetry: .serverHelloAfterRetry)),
             quic: QUICReading(version: QUICVersion(0xFF00_001D), end: .server), visibility: "encryptedInHandshake"),
        Case(file: "nDPI/quic-v2.pcapng", port: 4443, sni: "test",
             answer: .negotiated(TLSNegotiation(version: tls13, cipherSuite: CipherSuite(0x1301))),
             quic: QUICReading(version: .v2, end: .server)),
        Case(file: "nDPI/doq.pcapng", port: 784,
             offer: ClientTLSOffer(versionsForm: .listed, versions: [tls13, TLSProtocolVersion(0x7F1C), TLSProtocolVersion(0x7F1B),
                                                                   TLSProtocolVersion(0x7F1A)], applicationProtocols: ["doq-i00"]),
             answer: .negotiated(TLSNegotiation(version: tls13, cipherSuite: CipherSuite(0x1301))),
             quic: QUICReading(version: QUICVersion(0xFF00_0020), end: .server)),
        // tshark is wrong here: it takes UDP 853 for DTLS (told it is QUIC, it reads the same).
        Case(file: "zeek/quicdoq.pcap", port: 853,
             offer: ClientTLSOffer(versionsForm: .listed, versions: [tls13], applicationProtocols: ["doq"]),
             answer: .negotiated(TLSNegotiation(version: tls13, cipherSuite: CipherSuite(0x1301))),
             quic: QUICReading(version: .v1, end: .server)),
        // tshark is wrong here: it does not decrypt the client's Initials after Version Negotiation and a Retry.
        Case(file: "nDPI/quic-forcing-vn-with-data.pcapng", port: 4433,
             answer: .negotiated(TLSNegotiation(version: tls13, cipherSuite: CipherSuite(0x1301))),
             quic: QUICReading(version: .v1, end: .server, firstVersion: QUICVersion(0xBABA_BABA))),
        // Chrome's second CHLO (at stream offset 1024: the capture starts after the REJ); the server's long header names Q046 too.
        Case(file: "nDPI/quic_q46.pcap", port: 443, sni: "play.google.com", quic: QUICReading(version: QUICVersion(0x5130_3436), end: .server)),
        Case(file: "zeek/http-qinq-0.pcap", port: 80, opening: .httpRequest),
        Case(file: "zeek/http-vlan-0.pcap", port: 80, opening: .httpRequest),
        Case(file: "suricata-verify/decode-sll2-01/input.pcap", port: 80, opening: .httpRequest),
        Case(file: "zeek/ocsp-empty-responderid.pcap", port: 80, opening: .httpRequest),
    ]

    @Test(arguments: cases)
    func readsTheHandshake(_ expected: Case) throws {
        let reading = try CaptureReading(expected.file)
        let flow = try #require(reading.flow(toPort: expected.port))
        #expect(flow.sni == expected.sni)
        if let offer = expected.offer { #expect(flow.clientTLS == offer) }
        if let answer = expected.answer { #expect(flow.serverTLS == answer) }
        #expect(flow.streamOpening == expected.opening)
        if let quic = expected.quic { #expect(flow.quic == quic) }
        if let visibility = expected.visibility { #expect(flow.certificateVisibility.name == visibility) }
    }

    @Test(arguments: [
        ("zeek/tls1_1.pcap", 3, "CN=*.google.com,O=Google Inc,L=Mountain View,ST=California,C=US"),
        ("zeek/tls-early-alert.pcap", 4, nil),
        ("zeek/signed_certificate_timestamp_tls1_0.pcap", 3, nil),
        ("suricata-verify/tls-client-hello-frag-01/dump_mtu300.pcap", 3, nil),
        ("suricata-verify/tls-pre-1970/input.pcap", 1, nil),
    ] as [(String, Int, String?)])
    func readsTheCertificateChainOfTLS12AndEarlier(file: String, count: Int, subject: String?) throws {
        let reading = try CaptureReading(file)
        let flow = try #require(reading.flows.first { $0.serverCertificates != nil })
        guard case .presented(let chain, let complete) = flow.certificateVisibility else {
            Issue.record("no chain in \(file)")
            return
        }
        #expect(chain.count == count)
        #expect(complete)
        if let subject { #expect(chain.first?.subject == subject) }
        #expect(chain.allSatisfy { $0.sha256.count == 64 })
    }

    @Test func aCertificateDatedBefore1970KeepsItsDate() throws {
        let reading = try CaptureReading("suricata-verify/tls-pre-1970/input.pcap")
        guard case .presented(let chain, _)? = reading.flows.first(where: { $0.serverCertificates != nil })?.serverCertificates else {
            Issue.record("no chain")
            return
        }
        let notBefore = try #require(chain.first?.notBefore)
        #expect(notBefore < Date(timeIntervalSince1970: 0))
    }

    @Test func aStreamWithoutPayloadHasNoOpening() throws {
        let reading = try CaptureReading("tcpdump/tcp-handshake-nano.pcap")
        let flow = try #require(reading.flows.first)
        #expect(reading.flows.count == 1)
        #expect(flow.packetCount == 3)
        #expect(flow.streamOpening == nil)
        #expect(flow.tlsStatus == .plaintext)
    }

    @Test func tlsOnPort80IsRaisedToEncrypted() throws {
        let flow = try #require(try CaptureReading("nDPI/tls_port_80.pcapng").flow(toPort: 80))
        #expect(flow.tlsStatus == .encrypted)
    }
}

@Suite(.enabled(if: CaptureReading.externalIsPresent, "skipped extra: the external captures are absent"))
struct CertificateCacheTests {
    /// The same handshake twice, a day apart: the second chain comes from the engine's cache
    /// and must read exactly as the first.
    @Test func aChainMetAgainReadsTheSame() throws {
        let reader = try CaptureImportReader(path: "\(CaptureReading.directory)/zeek/tls1_1.pcap")
        var frames: [([UInt8], Int64)] = []
        try reader.forEachPacket { frames.append((Array($0.bytes), $0.timestampNanoseconds ?? 0)); return true }
        var engine = FlowEngine()
        let day: Int64 = 86_400 * 1_000_000_000
        for shift in [0, day] {
            for (frame, time) in frames {
                frame.withUnsafeBytes { engine.process(packet: $0, linkType: reader.linkType, timestampNanoseconds: time + shift) }
            }
        }
        let chains = engine.finishAll().flows.compactMap(\.state.serverCertificates)
        #expect(chains.count == 2)
        #expect(chains.first == chains.last)
    }
}
