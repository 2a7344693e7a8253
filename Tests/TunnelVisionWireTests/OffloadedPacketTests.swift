import PacketBuilding
import Testing
import TunnelVisionModel
@testable import TunnelVisionWire

/// A TUN super-packet becomes what the wire carried. Checksums are verified here by a plain
/// word-by-word sum, not the code under test; check 46 has tshark verify a real capture.
@Suite struct OffloadedPacketTests {
    static let phone4 = Endpoint(address: IPAddress("10.77.0.2")!, port: 40000)
    static let server4 = Endpoint(address: IPAddress("198.51.100.2")!, port: 443)

    /// flags, gso_type, hdr_len, gso_size, csum_start, csum_offset (little-endian).
    static func virtioHeader(needsChecksum: Bool, gsoType: UInt8, headerLength: Int, gsoSize: Int, checksumStart: Int,
                             checksumOffset: Int) -> [UInt8] {
        func le(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        return [needsChecksum ? 1 : 0, gsoType] + le(headerLength) + le(gsoSize) + le(checksumStart) + le(checksumOffset)
    }

    static func segments(header: [UInt8], packet: [UInt8]) -> [[UInt8]] {
        var result: [[UInt8]] = []
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: packet.count, alignment: 8)
        defer { scratch.deallocate() }
        header.withUnsafeBytes { header in
            packet.withUnsafeBytes { packet in
                OffloadedPacket.forEachSegment(virtioHeader: header, packet: packet, scratch: scratch) { result.append(Array($0)) }
            }
        }
        return result
    }

    static func onesComplementSum(_ words: [UInt8]) -> UInt16 {
        var sum: UInt32 = 0
        var index = 0
        while index < words.count {
            sum += UInt32(words[index]) << 8 | UInt32(index + 1 < words.count ? words[index + 1] : 0)
            sum = (sum & 0xFFFF) + (sum >> 16)
            index += 2
        }
        return UInt16(sum)
    }

    /// A segment's transport checksum holds when the pseudo-header and segment sum to 0xFFFF.
    static func transportChecksumHolds(_ packet: [UInt8], ipv6: Bool) -> Bool {
        let start = ipv6 ? 40 : 20
        let addresses = ipv6 ? Array(packet[8..<40]) : Array(packet[12..<20])
        let length = packet.count - start
        let pseudo = addresses + [0, ipv6 ? packet[6] : packet[9], UInt8(length >> 8), UInt8(length & 0xFF)]
        return onesComplementSum(pseudo + Array(packet[start...])) == 0xFFFF
    }

    @Test func aTCPSuperPacketIsCutIntoSegmentsOfItsGSOSize() throws {
        let payload = (0..<3000).map { UInt8(truncatingIfNeeded: $0) }
        var packet = PacketBuilder.tcp(from: Self.server4, to: Self.phone4, sequence: 1000, acknowledgement: 7,
                                       flags: TCPFlags(rawValue: 0x10 | 0x08 | 0x01), payload: payload)
        packet[4] = 0x12; packet[5] = 0x34  // IPv4 identifier
        let header = Self.virtioHeader(needsChecksum: true, gsoType: 1, headerLength: 40, gsoSize: 1000, checksumStart: 20,
                                       checksumOffset: 16)
        let segments = Self.segments(header: header, packet: packet)
        let lengths: [Int] = segments.map { $0.count }
        #expect(lengths == [1040, 1040, 1040])
        for (index, segment) in segments.enumerated() {
            let totalLength = Int(segment[2]) << 8 | Int(segment[3])
            let identifier = Int(segment[4]) << 8 | Int(segment[5])
            #expect(totalLength == 1040)
            #expect(identifier == 0x1234 + index)
            #expect(Self.onesComplementSum(Array(segment[0..<20])) == 0xFFFF)
            #expect(Self.transportChecksumHolds(segment, ipv6: false))
            let sequence: Int = segment[24..<28].reduce(0) { $0 << 8 | Int($1) }
            #expect(sequence == 1000 + 1000 * index)
            let isLast = index == segments.count - 1
            #expect((segment[33] & 0x01 != 0) == isLast)  // FIN
            #expect((segment[33] & 0x08 != 0) == isLast)  // PSH
            let expected = Array(payload[(1000 * index)..<(1000 * index + 1000)])
            #expect(Array(segment[40...]) == expected)
        }
    }

    @Test func aPartialUDPChecksumIsCompleted() throws {
        let phone6 = Endpoint(address: try #require(IPAddress("fd77::2")), port: 5353)
        let server6 = Endpoint(address: try #require(IPAddress("2001:db8::2")), port: 443)
        let packet = PacketBuilder.udp(from: server6, to: phone6, payload: Array("a datagram of odd length".utf8))
        let header = Self.virtioHeader(needsChecksum: true, gsoType: 0, headerLength: 0, gsoSize: 0, checksumStart: 40,
                                       checksumOffset: 6)
        let segments = Self.segments(header: header, packet: packet)
        let only = try #require(segments.first)
        #expect(segments.count == 1)
        #expect(only.count == packet.count)
        #expect(Self.transportChecksumHolds(only, ipv6: true))
    }

    @Test func aPacketWithNothingLeftToDoIsHandedOverAsItCame() {
        let packet = PacketBuilder.tcp(from: Self.phone4, to: Self.server4, sequence: 1, flags: [.syn])
        let segments = Self.segments(header: [UInt8](repeating: 0, count: 10), packet: packet)
        #expect(segments == [packet])
    }

    @Test func aHeaderThatDoesNotAddUpChangesNothing() {
        // GSO for TCP on a UDP packet, and a gso_size that would make a segment per byte.
        let udp = PacketBuilder.udp(from: Self.phone4, to: Self.server4, payload: [1, 2, 3])
        #expect(Self.segments(header: Self.virtioHeader(needsChecksum: false, gsoType: 1, headerLength: 28, gsoSize: 1,
                                                        checksumStart: 20, checksumOffset: 16), packet: udp) == [udp])
        let truncated = Array(PacketBuilder.tcp(from: Self.phone4, to: Self.server4, sequence: 1, flags: [.ack]).prefix(30))
        #expect(Self.segments(header: Self.virtioHeader(needsChecksum: true, gsoType: 1, headerLength: 40, gsoSize: 10,
                                                        checksumStart: 20, checksumOffset: 16), packet: truncated) == [truncated])
    }

    static func verdict(_ header: [UInt8], _ packet: [UInt8]) -> OffloadedPacket.Verdict {
        header.withUnsafeBytes { header in packet.withUnsafeBytes { OffloadedPacket.verdict(virtioHeader: header, packet: $0) } }
    }

    @Test func aUDPSuperPacketIsCutIntoDatagramsOfItsGSOSize() throws {
        let payload = (0..<2500).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var packet = PacketBuilder.udp(from: Self.server4, to: Self.phone4, payload: payload)
        packet[4] = 0x00; packet[5] = 0x10
        let header = Self.virtioHeader(needsChecksum: true, gsoType: 5, headerLength: 28, gsoSize: 1200, checksumStart: 20,
                                       checksumOffset: 6)
        #expect(Self.verdict(header, packet) == .cut)
        let segments = Self.segments(header: header, packet: packet)
        #expect(segments.map(\.count) == [1228, 1228, 128])
        for (index, segment) in segments.enumerated() {
            #expect(Int(segment[2]) << 8 | Int(segment[3]) == segment.count)
            #expect(Int(segment[4]) << 8 | Int(segment[5]) == 0x10 + index)
            #expect(Int(segment[24]) << 8 | Int(segment[25]) == segment.count - 20)  // UDP length
            #expect(Self.onesComplementSum(Array(segment[0..<20])) == 0xFFFF)
            #expect(Self.transportChecksumHolds(segment, ipv6: false))
            #expect(Array(segment[28...]) == Array(payload[(1200 * index)..<min(payload.count, 1200 * index + 1200)]))
        }
    }

    @Test func eachFieldOfTheHeaderIsCheckedAgainstThePacket() {
        let tcp = PacketBuilder.tcp(from: Self.server4, to: Self.phone4, sequence: 1, flags: [.ack], payload: Array(repeating: 7, count: 3000))
        func header(flags: UInt8 = 1, gsoType: UInt8 = 1, headerLength: Int = 40, gsoSize: Int = 1000, checksumStart: Int = 20,
                    checksumOffset: Int = 16) -> [UInt8] {
            var bytes = Self.virtioHeader(needsChecksum: false, gsoType: gsoType, headerLength: headerLength, gsoSize: gsoSize,
                                          checksumStart: checksumStart, checksumOffset: checksumOffset)
            bytes[0] = flags
            return bytes
        }
        #expect(Self.verdict(header(), tcp) == .cut)
        #expect(Self.verdict(header(gsoSize: 3000), tcp) == .completeChecksum)
        #expect(Self.verdict(header(flags: 2, gsoType: 0), tcp) == .asItCame)
        #expect(Self.verdict(header(gsoType: 1 | 0x80), tcp) == .cut)  // ECN on TCP
        let wrong: [(String, [UInt8])] = [
            ("an unknown flag", header(flags: 1 | 4)),
            ("a checksum start past the IP header", header(checksumStart: 24)),
            ("a checksum offset that is not TCP's", header(checksumOffset: 6)),
            ("a checksum start beyond the packet", header(gsoType: 0, checksumStart: 3050)),
            ("hdr_len beyond the packet", header(headerLength: 3041)),
            ("gso_size 0", header(gsoSize: 0)),
            ("a segment longer than an IP length holds", header(gsoSize: 65_500)),
            ("GSO without the partial checksum it always has", header(flags: 0)),
            ("TCP over IPv6 for an IPv4 packet", header(gsoType: 4)),
            ("UDP for a TCP packet", header(gsoType: 5)),
            ("UFO, which the tap never asks for", header(gsoType: 3)),
            ("ECN without GSO", header(gsoType: 0x80)),
            ("a short header", Array(header().prefix(9))),
        ]
        for (what, bytes) in wrong {
            #expect(Self.verdict(bytes, tcp) == .notUnderstood, "\(what)")
            let handedOverAsItCame = Self.segments(header: bytes, packet: tcp) == [tcp]
            #expect(handedOverAsItCame, "\(what)")
        }
    }
}
