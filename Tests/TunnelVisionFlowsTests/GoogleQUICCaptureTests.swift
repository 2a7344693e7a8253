import Testing
import TunnelVisionFlows
import TunnelVisionModel

/// The built Google QUIC captures (`tvwire gquic`, Tests/Captures/wire): the phone's first
/// datagram of Q043, Q046, Q050 and T051, its name and version read as tshark reads them.
@Suite struct GoogleQUICCaptureTests {
    @Test(arguments: [
        ("gquic-q043.pcap", "q043.wire.test", UInt32(0x5130_3433)),
        ("gquic-q046.pcap", "q046.wire.test", 0x5130_3436),
        ("gquic-q050.pcap", "q050.wire.test", 0x5130_3530),
    ])
    func readsTheNameAndVersionOfAGoogleQUICHello(file: String, name: String, version: UInt32) throws {
        let reading = try CaptureReading(lab: file)
        let flow = try #require(reading.flow(toPort: 443))
        #expect(flow.sni == name)
        #expect(flow.quic == QUICReading(version: QUICVersion(version), end: .client))
        // QUIC-crypto is not a protection whose strength the tool judges.
        #expect(flow.tlsStatus != .encrypted)
    }

    /// T051: the client's Initial and the server's, whose ServerHello follows an ACK in Google's layout.
    @Test func readsBothEndsOfAT051Handshake() throws {
        let reading = try CaptureReading(lab: "gquic-t051.pcap")
        let flow = try #require(reading.flow(toPort: 443))
        #expect(flow.sni == "t051.wire.test")
        #expect(flow.clientTLS?.applicationProtocols == ["h3-T051"])
        #expect(flow.quic == QUICReading(version: QUICVersion(0x5430_3531), end: .server))
        #expect(flow.serverTLS?.negotiation == TLSNegotiation(version: .tls13, cipherSuite: CipherSuite(0x1301)))
    }
}
