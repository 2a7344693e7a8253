import Testing
import TunnelVisionModel
@testable import TunnelVisionWire

/// The link types added for foreign captures: PPP, Cisco HDLC, OpenBSD loopback, NFLOG.
@Suite struct LinkTypeTests {
    static let segment = PacketTests.segment

    static func nflog(_ packet: [UInt8], before: [UInt8] = []) -> [UInt8] {
        let length = packet.count + 4
        return [2, 0, 0, 1] + before + [UInt8(length & 0xFF), UInt8(length >> 8), 9, 0] + packet
    }

    @Test(arguments: [
        (LinkType.ppp, bytes("ff03 0021")),
        (LinkType.ppp, bytes("0021")),  // without address and control
        (LinkType.ppp, bytes("21")),  // protocol-field compression
        (LinkType.pppHDLC, bytes("ff03 0021")),
        (LinkType.pppHDLC, bytes("0f00 0800")),  // Cisco's PPP in HDLC framing
        (LinkType.pppWithDirection, bytes("01 ff03 0021")),
        (LinkType.ciscoHDLC, bytes("0f00 0800")),
        (LinkType.ciscoHDLC, bytes("8f00 0800")),
        (LinkType.ciscoHDLCWithDirection, bytes("00 0f00 0800")),
        (LinkType.openBSDLoopback, bytes("00000002")),
        // A timestamp attribute (type 3, 12 bytes) before the packet's.
        (LinkType.nflog, [2, 0, 0, 1] + bytes("0c00 0300 0000000000000000")),
    ])
    func readsTheSegmentBehindEachNewLinkLayer(linkType: LinkType, header: [UInt8]) throws {
        var frame = header + Self.segment
        if linkType == .nflog {
            frame = Self.nflog(Self.segment, before: bytes("0c00 0300 0000000000000000"))
        }
        try frame.withUnsafeBytes { buffer in
            let packet = try #require(DecodedPacket(frame: buffer, linkType: linkType))
            #expect(packet.source == PacketTests.client)
            #expect(Array(packet.payload) == [1, 2, 3])
        }
        #expect(LinkType.supported.contains(linkType))
    }

    @Test(arguments: [
        (LinkType.ppp, bytes("ff03 c021 0000")),  // LCP, not IP
        (LinkType.ppp, bytes("ff05 0021")),  // not RFC 1662's control byte
        (LinkType.ppp, bytes("ff")),
        (LinkType.ciscoHDLC, bytes("0f00 8035")),  // SLARP keepalive
        (LinkType.ciscoHDLC, bytes("0f00")),
        (LinkType.nflog, bytes("02 01 0001 0800 0900")),  // version 1
        (LinkType.nflog, bytes("02 00 0001 0300 0900")),  // an attribute shorter than its own header
        (LinkType.nflog, bytes("02 00 0001 ff00 0900 0000")),  // longer than the frame
        (LinkType.nflog, bytes("02 00 0001 0800 0300 00000000")),  // no packet attribute
    ])
    func refusesFramesThatCarryNoIP(linkType: LinkType, frame: [UInt8]) {
        frame.withUnsafeBytes { buffer in
            #expect(DecodedPacket(frame: buffer, linkType: linkType) == nil)
        }
    }

    @Test func aLinkTypeNotReadStaysRefused() {
        // IEEE 802.11 with radiotap: not a link type the engine reads.
        #expect(!LinkType.supported.contains(LinkType(rawValue: 127)))
        Self.segment.withUnsafeBytes { #expect(LinkType(rawValue: 127).networkPayload(of: $0) == nil) }
    }
}
