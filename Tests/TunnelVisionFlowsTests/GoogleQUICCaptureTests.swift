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
        ("gquic-t051.pcap", "t051.wire.test", 0x5430_3531),
    ])
    func readsTheNameAndVersionOfAGoogleQUICHello(file: String, name: String, version: UInt32) throws {
        let reading = try CaptureReading(lab: file)
        let flow = try #require(reading.flow(toPort: 443))
        #expect(flow.sni == name)
        #expect(flow.quic == QUICReading(version: QUICVersion(version), end: .client))
        // QUIC-crypto and Google's TLS versions are not versions whose protection is known.
        #expect(flow.tlsStatus != .encrypted)
    }
}
