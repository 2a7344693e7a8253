import Foundation
import Testing
import TunnelVisionFlows
import TunnelVisionModel
@testable import TunnelVisionWire

/// Readings foreign captures needed (IP fragments, QUIC after a Version Negotiation, the PROXY
/// protocol), on the project's own captures: real clients, servers and kernels (Tests/Captures).
@Suite struct ForeignReadingTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Captures").standardized.path

    /// dnsmasq's answers of 160 A records and of the 145 AAAA records it fits before setting TC,
    /// fragmented by the server's kernel: read whole, every record (tshark counts the same),
    /// where the first fragment alone held about 90 and 50.
    @Test func readsAFragmentedDNSAnswerWhole() throws {
        let reading = try CaptureReading(path: "\(Self.corpus)/fragments.pcap")
        let v4 = reading.dnsAnswers.filter { $0.address.family == .v4 }
        let v6 = reading.dnsAnswers.filter { $0.address.family == .v6 }
        #expect(Set(v4.map(\.address)).count == 160)
        #expect(Set(v6.map(\.address)).count == 145)
    }

    /// aioquic's Initials of 1452 bytes over a loopback of MTU 1280, cut by the sending kernel.
    @Test(arguments: ["quic-fragmented-ipv4.pcap", "quic-fragmented-ipv6.pcap"])
    func readsAQUICInitialCarriedInFragments(_ file: String) throws {
        let reading = try CaptureReading(lab: file)
        let flow = try #require(reading.flow(toPort: 4436))
        #expect(flow.sni == "wire.test")
        #expect(flow.quic?.version == .v1)
        #expect(flow.clientTLS?.applicationProtocols == ["h3"])
        // Each fragment counts as a packet of the flow: nothing is left to a flow of its own.
        #expect(reading.flows.allSatisfy { $0.key.endpointA.port != 0 && $0.key.endpointB.port != 0 })
    }

    /// aioquic opening with a reserved version (0x1a2a3a4a): the server's Version Negotiation
    /// moves it to v1 on the same socket; the v1 Initial is read, the first version kept.
    @Test func readsTheInitialAfterAVersionNegotiation() throws {
        let reading = try CaptureReading(lab: "quic-after-version-negotiation.pcap")
        let flow = try #require(reading.flow(toPort: 443))
        #expect(flow.sni == "wire.test")
        #expect(flow.quic?.version == .v1)
        #expect(flow.quic?.end == .server)
        #expect(flow.quic?.firstVersion == QUICVersion(0x1A2A_3A4A))
        #expect(flow.serverTLS?.negotiation?.version == .tls13)
    }

    /// curl's own PROXY v1 line, and haproxy's v2 header relaying curl: the TLS behind is read,
    /// the announced connection kept.
    @Test(arguments: [(UInt8(1), UInt16(443)), (2, 4450)])
    func readsTheTLSBehindAPROXYHeader(version: UInt8, announcedPort: UInt16) throws {
        let reading = try CaptureReading(lab: "proxy-protocol-v\(version).pcap")
        let flow = try #require(reading.flow(toPort: 443))
        #expect(flow.sni == "wire.test")
        #expect(flow.serverTLS?.negotiation?.version == .tls13)
        let announced = try #require(flow.proxyProtocol)
        #expect(announced.version == version)
        #expect(announced.source?.address == IPAddress("127.0.0.1"))
        #expect(announced.destination == Endpoint(address: IPAddress("127.0.0.1")!, port: announcedPort))
        // The announced client is the one that connected: in v1 the capture's own client.
        if version == 1 { #expect(announced.source.map { flow.key.endpointA == $0 || flow.key.endpointB == $0 } == true) }
    }

    /// Real recordings behind the link layers `tvwire relink` writes: the same readings.
    @Test(arguments: [("tls13-ppp.pcap", "tls13.lab", UInt16(443)), ("tls13-ipv6-cisco-hdlc.pcap", "tls13-v6.lab", 443),
                      ("quic-v1-nflog.pcap", "tls13.lab", 443)])
    func readsTheSameHandshakeBehindEachLinkLayer(_ file: String, name: String, port: UInt16) throws {
        let reading = try CaptureReading(path: "\(Self.corpus)/link/\(file)")
        let flow = try #require(reading.flow(toPort: port))
        #expect(flow.sni == name)
        #expect(flow.serverTLS?.negotiation?.version == .tls13)
    }
}
