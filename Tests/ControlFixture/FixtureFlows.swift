import Foundation
import TunnelVisionModel

/// The synthetic traffic `tvfixture` seeds: each flow is a kind of thing the findings and
/// the diff have to tell apart, at an offset from the start of its recording.
enum FixtureFlows {
    struct Planned: Sendable {
        let offset: TimeInterval
        let state: @Sendable (Instant) -> FlowState
    }

    static let phone = IPAddress(v4: 0x0A4D_0002)  // 10.77.0.2, a client of the lab's WireGuard network

    /// The resolver the fixture's phone asks, named by the sessions as the gateway's.
    static let resolver = server(53)

    private static func server(_ last: UInt32) -> IPAddress { IPAddress(v4: 0xC633_6400 | last) }  // 198.51.100.x (TEST-NET-2)

    private static func tcp(_ port: UInt16, to last: UInt32, from source: UInt16) -> FlowKey {
        FlowKey(proto: .tcp, Endpoint(address: phone, port: source), Endpoint(address: server(last), port: port))
    }

    private static func udp(_ port: UInt16, to last: UInt32, from source: UInt16) -> FlowKey {
        FlowKey(proto: .udp, Endpoint(address: phone, port: source), Endpoint(address: server(last), port: port))
    }

    private static func offer(_ versions: [TLSProtocolVersion]) -> ClientTLSOffer {
        ClientTLSOffer(versionsForm: .listed, versions: versions, applicationProtocols: ["h2", "http/1.1"])
    }

    /// A TLS flow over TCP with the server's answer read from its ServerHello.
    private static func tls(
        _ host: String, _ version: TLSProtocolVersion, suite: UInt16, server last: UInt32, source: UInt16,
        offered: [TLSProtocolVersion] = [.tls13, .tls12]
    ) -> @Sendable (Instant) -> FlowState {
        { start in
            FlowState(
                key: tcp(443, to: last, from: source), firstSeen: start, lastSeen: start.addingTimeInterval(4),
                bytesOut: 2_140, bytesIn: 18_322, packetCount: 24, tlsStatus: .encrypted, sni: host,
                serverTLS: .negotiated(TLSNegotiation(version: version, cipherSuite: CipherSuite(suite))),
                clientTLS: offer(offered), streamOpening: .tlsHandshake)
        }
    }

    private static func plainHTTP(_ host: String, server last: UInt32, source: UInt16) -> @Sendable (Instant) -> FlowState {
        { start in
            FlowState(
                key: tcp(80, to: last, from: source), firstSeen: start, lastSeen: start.addingTimeInterval(1),
                bytesOut: 412, bytesIn: 5_310, packetCount: 9, tlsStatus: .plaintext,
                resolvedName: ResolvedName(name: host), streamOpening: .httpRequest)
        }
    }

    private static func quic(_ host: String, server last: UInt32, source: UInt16) -> @Sendable (Instant) -> FlowState {
        { start in
            FlowState(
                key: udp(443, to: last, from: source), firstSeen: start, lastSeen: start.addingTimeInterval(3),
                bytesOut: 3_800, bytesIn: 9_950, packetCount: 17, tlsStatus: .encrypted, sni: host,
                clientTLS: offer([.tls13]), quic: QUICReading(version: .v1, end: .server))
        }
    }

    private static func dns(server last: UInt32, source: UInt16) -> @Sendable (Instant) -> FlowState {
        { start in
            FlowState(
                key: udp(53, to: last, from: source), firstSeen: start, lastSeen: start.addingTimeInterval(0.05),
                bytesOut: 74, bytesIn: 122, packetCount: 2, tlsStatus: .plaintext)
        }
    }

    /// A TLS flow whose ClientHello was not read: it has no name.
    private static func unnamed(server last: UInt32, source: UInt16) -> @Sendable (Instant) -> FlowState {
        { start in
            FlowState(
                key: tcp(443, to: last, from: source), firstSeen: start, lastSeen: start.addingTimeInterval(2),
                bytesOut: 900, bytesIn: 1_200, packetCount: 8, tlsStatus: .encrypted)
        }
    }

    /// Named by DNS, with another live name for the same address.
    private static func sharedAddress(_ host: String, other: String, server last: UInt32, source: UInt16) -> @Sendable (Instant) -> FlowState {
        { start in
            FlowState(
                key: tcp(443, to: last, from: source), firstSeen: start, lastSeen: start.addingTimeInterval(2),
                bytesOut: 1_100, bytesIn: 2_600, packetCount: 10, tlsStatus: .encrypted,
                resolvedName: ResolvedName(name: host, otherNames: [other]), streamOpening: .tlsHandshake)
        }
    }

    /// Before any recording: the phone's own background traffic.
    static let before: [Planned] = [
        Planned(offset: 5, state: tls("connectivitycheck.gstatic.com", .tls13, suite: 0x1301, server: 10, source: 40_001)),
        Planned(offset: 9, state: dns(server: 53, source: 40_002)),
        Planned(offset: 20, state: tls("play.googleapis.com", .tls13, suite: 0x1302, server: 11, source: 40_003)),
        Planned(offset: 41, state: quic("www.google.com", server: 12, source: 40_004)),
    ]

    /// The baseline: the phone without the app.
    static let baseline: [Planned] = [
        Planned(offset: 12, state: tls("connectivitycheck.gstatic.com", .tls13, suite: 0x1301, server: 10, source: 41_001)),
        Planned(offset: 30, state: dns(server: 53, source: 41_002)),
        Planned(offset: 47, state: tls("android.clients.google.com", .tls13, suite: 0x1301, server: 13, source: 41_003)),
        Planned(offset: 95, state: quic("play.googleapis.com", server: 11, source: 41_004)),
    ]

    /// Between the two recordings.
    static let between: [Planned] = [
        Planned(offset: 3, state: tls("time.android.com", .tls13, suite: 0x1301, server: 14, source: 42_001)),
        Planned(offset: 7, state: dns(server: 53, source: 42_002)),
        Planned(offset: 18, state: tls("connectivitycheck.gstatic.com", .tls13, suite: 0x1301, server: 10, source: 42_003)),
        Planned(offset: 60, state: tls("mtalk.google.com", .tls12, suite: 0xC02F, server: 15, source: 42_004)),
    ]

    /// The audit of release 2.4.1 (310): the consent marker falls at 60 s, so the first flow is before it.
    static let audit: [Planned] = [
        Planned(offset: 10, state: tls("api.acme.example", .tls13, suite: 0x1301, server: 20, source: 43_001)),
        Planned(offset: 75, state: tls("cdn.acme.example", .tls12, suite: 0xC02F, server: 21, source: 43_002)),
        Planned(offset: 90, state: tls("tracker.adnet.example", .tls12, suite: 0xC030, server: 30, source: 43_003)),
        Planned(offset: 110, state: tls("legacy.acme.example", .tls10, suite: 0xC013, server: 22, source: 43_004, offered: [.tls12, .tls11, .tls10])),
        Planned(offset: 130, state: plainHTTP("images.acme.example", server: 23, source: 43_005)),
        Planned(offset: 150, state: unnamed(server: 31, source: 43_006)),
        Planned(offset: 170, state: quic("o123.ingest.sentry.io", server: 32, source: 43_007)),
        Planned(offset: 190, state: dns(server: 53, source: 43_008)),
        Planned(offset: 210, state: sharedAddress("metrics.acme.example", other: "ads.adnet.example", server: 33, source: 43_009)),
        Planned(offset: 240, state: tls("api.acme.example", .tls13, suite: 0x1301, server: 20, source: 43_010)),
    ]

    /// After the recordings.
    static let after: [Planned] = [
        Planned(offset: 4, state: tls("connectivitycheck.gstatic.com", .tls13, suite: 0x1301, server: 10, source: 44_001)),
        Planned(offset: 15, state: dns(server: 53, source: 44_002)),
        Planned(offset: 33, state: tls("play.googleapis.com", .tls13, suite: 0x1302, server: 11, source: 44_003)),
        Planned(offset: 52, state: tls("mtalk.google.com", .tls12, suite: 0xC02F, server: 15, source: 44_004)),
    ]
}
