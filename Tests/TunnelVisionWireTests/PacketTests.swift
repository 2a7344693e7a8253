import PacketBuilding
import Testing
import TunnelVisionModel
@testable import TunnelVisionWire

@Suite struct PacketTests {
    static let client = Endpoint(address: IPAddress("10.0.0.2")!, port: 50000)
    static let server = Endpoint(address: IPAddress("93.184.216.34")!, port: 443)
    static let segment = PacketBuilder.tcp(from: client, to: server, sequence: 7, flags: .syn, payload: [1, 2, 3])

    /// Each link type wraps the same IPv4 segment.
    @Test(arguments: [
        (LinkType.raw, [UInt8]()),
        (LinkType.ipv4, []),
        (LinkType.bsdLoopback, [2, 0, 0, 0]),
        (LinkType.ethernet, bytes("ffffffffffff 000000000000 0800")),
        (LinkType.ethernet, bytes("ffffffffffff 000000000000 8100 0001 0800")),
        (LinkType.ethernet, bytes("ffffffffffff 000000000000 88a8 0001 8100 0002 0800")),
        (LinkType.ethernet, bytes("ffffffffffff 000000000000 8864 1100 0001 0020 0021")),
        (LinkType.linuxCooked, bytes("0000 0001 0006 000000000000 0000 0800")),
        (LinkType.linuxCookedV2, bytes("0800 0000 00000001 0001 00 06 000000000000 0000")),
    ])
    func readsTheTupleBehindEveryLinkLayer(linkType: LinkType, header: [UInt8]) throws {
        let frame = header + Self.segment
        try frame.withUnsafeBytes { buffer in
            let packet = try #require(DecodedPacket(frame: buffer, linkType: linkType))
            #expect(packet.source == Self.client)
            #expect(packet.destination == Self.server)
            #expect(packet.tcp?.flags == .syn)
            #expect(Array(packet.payload) == [1, 2, 3])
        }
    }

    @Test(arguments: [
        bytes("ffffffffffff 000000000000 0806 0001"),  // ARP
        bytes("ffffffffffff 000000000000 86dd 4500"),  // IPv6 ethertype, IPv4 nibble
        bytes("ffffffffffff 0000"),  // cut short
        bytes("4f00 0014 0000 0000 4006 0000 0a000002 5db8d822"),  // IHL beyond the packet
        bytes("4500 0010 0000 0000 4006 0000 0a000002 5db8d822"),  // total length below the header
    ])
    func refusesFramesWithoutAReadableIPPacket(frame: [UInt8]) {
        frame.withUnsafeBytes { buffer in
            let linkType: LinkType = frame.first == 0xFF ? .ethernet : .raw
            #expect(DecodedPacket(frame: buffer, linkType: linkType) == nil)
        }
    }

    @Test func walksIPv6ExtensionHeadersToTheTransport() throws {
        let source = IPAddress("2001:db8::1")!, destination = IPAddress("2001:db8::2")!
        let udp = bytes("c350 0035 000b 0000 616263")
        // Hop-by-hop (8 bytes) → destination options (8) → atomic fragment (8) → UDP.
        let extensions = bytes("3c00 0000 0000 0000") + bytes("2c00 0000 0000 0000") + bytes("1100 0000 1234 5678")
        var packet: [UInt8] = [0x60, 0, 0, 0]
        packet.appendBigEndian(UInt16(extensions.count + udp.count))
        packet += [0, 64] + source.bytes + destination.bytes + extensions + udp
        try packet.withUnsafeBytes { buffer in
            let decoded = try #require(DecodedPacket(frame: buffer, linkType: .raw))
            #expect(decoded.transport == .udp)
            #expect(decoded.destination.port == 53)
            #expect(Array(decoded.payload) == Array("abc".utf8))
            #expect(decoded.ip.fragmentIdentifier == nil)
        }
    }

    @Test func aLaterIPv4FragmentCarriesNoTransportHeader() throws {
        var packet = PacketBuilder.udp(from: Self.client, to: Self.server, payload: [9, 9, 9])
        packet[6] = 0x00
        packet[7] = 0x10  // fragment offset 16 × 8 bytes
        try packet.withUnsafeBytes { buffer in
            let decoded = try #require(DecodedPacket(frame: buffer, linkType: .raw))
            #expect(decoded.ip.isLaterFragment)
            #expect(decoded.sourcePort == 0)
            #expect(decoded.payload.isEmpty)
        }
    }

    @Test func aTruncatedCaptureKeepsWhatWasCaptured() throws {
        let packet = PacketBuilder.udp(from: Self.client, to: Self.server, payload: [UInt8](repeating: 7, count: 100))
        try Array(packet.prefix(40)).withUnsafeBytes { buffer in
            let decoded = try #require(DecodedPacket(frame: buffer, linkType: .raw))
            #expect(decoded.payload.count == 12)
            #expect(decoded.ip.totalLength == 128)
        }
    }
}
