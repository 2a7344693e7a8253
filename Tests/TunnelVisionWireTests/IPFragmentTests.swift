import PacketBuilding
import Testing
import TunnelVisionModel
@testable import TunnelVisionWire

/// Fragments of one UDP datagram, made by hand as a sending kernel cuts them.
enum Fragments {
    static let v4Client = IPAddress("198.51.100.1")!, v4Server = IPAddress("198.51.100.54")!
    static let v6Client = IPAddress("2001:db8:100::1")!, v6Server = IPAddress("2001:db8:100::54")!

    /// The UDP datagram (header and `count` bytes of data) from the server's port 53.
    static func datagram(count: Int, to client: IPAddress) -> [UInt8] {
        let data = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let server = client.family == .v4 ? v4Server : v6Server
        let packet = PacketBuilder.udp(from: Endpoint(address: server, port: 53), to: Endpoint(address: client, port: 40000), payload: data)
        return Array(packet.dropFirst(client.family == .v4 ? 20 : 40))
    }

    /// One fragment carrying `payload` at byte `offset` of the datagram's payload.
    static func fragment(_ payload: ArraySlice<UInt8>, offset: Int, more: Bool, identifier: UInt32 = 0x1234,
                         v6: Bool = false, truncateBy: Int = 0) -> [UInt8] {
        var packet: [UInt8]
        if v6 {
            packet = [0x60, 0, 0, 0]
            packet.appendBigEndian(UInt16(8 + payload.count))
            packet += [44, 64] + v6Server.bytes + v6Client.bytes
            packet += [17, 0]
            packet.appendBigEndian(UInt16(offset / 8) << 3 | (more ? 1 : 0))
            packet.appendBigEndian(identifier)
        } else {
            packet = [0x45, 0]
            packet.appendBigEndian(UInt16(20 + payload.count))
            packet.appendBigEndian(UInt16(truncatingIfNeeded: identifier))
            packet.appendBigEndian(UInt16(offset / 8) | (more ? 0x2000 : 0))
            packet += [64, 17, 0, 0] + v4Server.bytes + v4Client.bytes
        }
        packet += payload
        return Array(packet.dropLast(truncateBy))
    }

    /// The datagram cut in pieces of `size` bytes (a multiple of 8), in order.
    static func cut(_ datagram: [UInt8], size: Int, v6: Bool = false, identifier: UInt32 = 0x1234) -> [[UInt8]] {
        stride(from: 0, to: datagram.count, by: size).map { offset in
            let end = min(offset + size, datagram.count)
            return fragment(datagram[offset..<end], offset: offset, more: end < datagram.count, identifier: identifier, v6: v6)
        }
    }
}

@Suite struct IPFragmentTests {
    static let second: Int64 = 1_000_000_000

    private func insert(_ fragment: [UInt8], into reassembler: inout IPFragmentReassembler, at now: Int64 = 0) throws -> IPFragmentReassembler.Outcome {
        try fragment.withUnsafeBytes { raw in
            let packet = try #require(IPPacket(raw))
            return reassembler.insert(packet, at: now)
        }
    }

    private func insertAll(_ fragments: [[UInt8]], into reassembler: inout IPFragmentReassembler, at now: Int64 = 0) throws -> [IPFragmentReassembler.Outcome] {
        try fragments.map { try insert($0, into: &reassembler, at: now) }
    }

    /// The datagram the reassembled packet carries, read as a packet of its own.
    private func udpPayload(_ outcome: IPFragmentReassembler.Outcome?) throws -> (ports: [UInt16], payload: [UInt8]) {
        guard case .reassembled(let bytes)? = outcome else {
            Issue.record("not reassembled: \(String(describing: outcome))")
            return ([], [])
        }
        return try bytes.withUnsafeBytes { raw in
            let packet = try #require(DecodedPacket(frame: raw, linkType: .raw))
            #expect(packet.ip.fragmentIdentifier == nil)
            return ([packet.sourcePort, packet.destinationPort], Array(packet.payload))
        }
    }

    @Test(arguments: [false, true])
    func putsADatagramBackTogetherWhateverTheOrderOfItsFragments(v6: Bool) throws {
        let datagram = Fragments.datagram(count: 3000, to: v6 ? Fragments.v6Client : Fragments.v4Client)
        var pieces = Fragments.cut(datagram, size: 1232, v6: v6)
        pieces.swapAt(0, 2)
        var reassembler = IPFragmentReassembler()
        let outcomes = try insertAll(pieces, into: &reassembler)
        #expect(outcomes.dropLast().allSatisfy { $0 == .held })
        let (ports, payload) = try udpPayload(outcomes.last)
        #expect(ports == [53, 40000])
        #expect(payload == Array(datagram.dropFirst(8)))
        #expect(reassembler.heldDatagrams == 0)
        #expect(reassembler.memory == 0)
    }

    @Test func ignoresAnExactDuplicateAndStillCompletes() throws {
        let pieces = Fragments.cut(Fragments.datagram(count: 2000, to: Fragments.v4Client), size: 1000)
        var reassembler = IPFragmentReassembler()
        #expect(try insert(pieces[0], into: &reassembler) == .held)
        #expect(try insert(pieces[0], into: &reassembler) == .duplicate)
        #expect(try insert(pieces[1], into: &reassembler) == .held)
        #expect(try insert(pieces[1], into: &reassembler) == .duplicate)
        _ = try udpPayload(try insert(pieces[2], into: &reassembler))
    }

    @Test(arguments: [false, true])
    func discardsTheWholeDatagramWhenFragmentsOverlap(v6: Bool) throws {
        let datagram = Fragments.datagram(count: 2000, to: v6 ? Fragments.v6Client : Fragments.v4Client)
        let pieces = Fragments.cut(datagram, size: 1000, v6: v6)
        var reassembler = IPFragmentReassembler()
        #expect(try insert(pieces[0], into: &reassembler) == .held)
        // Bytes 992..<1504: they overlap the first fragment's tail, rewriting what it said.
        let overlapping = Fragments.fragment(datagram[992..<1504], offset: 992, more: true, v6: v6)
        #expect(try insert(overlapping, into: &reassembler) == .refused(.overlap))
        #expect(reassembler.heldDatagrams == 0)
        // What remains of the datagram never completes: its first fragment went with it.
        #expect(try insert(pieces[1], into: &reassembler) == .held)
        #expect(try insert(pieces[2], into: &reassembler) == .held)
    }

    @Test func refusesMoreFragmentsThanADatagramNeeds() throws {
        let datagram = Fragments.datagram(count: 2000, to: Fragments.v4Client)
        var reassembler = IPFragmentReassembler()
        let outcomes = try insertAll(Fragments.cut(datagram, size: 8), into: &reassembler)
        #expect(outcomes.contains(.refused(.tooManyFragments)))
        #expect(!outcomes.contains { if case .reassembled = $0 { true } else { false } })
    }

    @Test(arguments: [false, true])
    func refusesADatagramOverSixtyFiveThousandFiveHundredThirtyFiveBytes(v6: Bool) throws {
        var reassembler = IPFragmentReassembler()
        let first = Fragments.fragment(ArraySlice(repeating: 0, count: 1000), offset: 0, more: true, v6: v6)
        #expect(try insert(first, into: &reassembler) == .held)
        // The highest offset a header can state, 65,528, with 64 bytes: the datagram would pass 65,535.
        let last = Fragments.fragment(ArraySlice(repeating: 1, count: 64), offset: 65_528, more: false, v6: v6)
        #expect(try insert(last, into: &reassembler) == .refused(.oversize))
        #expect(reassembler.heldDatagrams == 0)
    }

    @Test func dropsADatagramThatTakesLongerThanTheKernelWaits() throws {
        let v4 = Fragments.cut(Fragments.datagram(count: 2000, to: Fragments.v4Client), size: 1000)
        let v6 = Fragments.cut(Fragments.datagram(count: 2000, to: Fragments.v6Client), size: 1000, v6: true)
        var reassembler = IPFragmentReassembler()
        #expect(try insert(v4[0], into: &reassembler) == .held)
        #expect(try insert(v6[0], into: &reassembler) == .held)
        // 31 s later: past IPv4's 30 s, within IPv6's 60 s.
        let later = 31 * Self.second
        #expect(try insert(v4[1], into: &reassembler, at: later) == .held)
        #expect(try insert(v4[2], into: &reassembler, at: later) == .held)
        #expect(try insert(v6[1], into: &reassembler, at: later) == .held)
        _ = try udpPayload(try insert(v6[2], into: &reassembler, at: later))
        #expect(reassembler.statistics.expired == 1)
    }

    @Test func refusesFragmentsPastItsMemoryBudget() throws {
        var limits = IPFragmentReassembler.Limits()
        limits.memoryBudget = 3000
        var reassembler = IPFragmentReassembler(limits: limits)
        let first = Fragments.cut(Fragments.datagram(count: 4000, to: Fragments.v4Client), size: 1000, identifier: 1)
        let second = Fragments.cut(Fragments.datagram(count: 4000, to: Fragments.v4Client), size: 1000, identifier: 2)
        #expect(try insert(first[0], into: &reassembler) == .held)
        #expect(try insert(first[1], into: &reassembler) == .held)
        #expect(try insert(second[0], into: &reassembler) == .refused(.overBudget))
        #expect(reassembler.memory <= limits.memoryBudget)
        #expect(reassembler.heldDatagrams == 1)
    }

    @Test func refusesALastFragmentThatMovesTheEnd() throws {
        let datagram = Fragments.datagram(count: 2000, to: Fragments.v4Client)
        var reassembler = IPFragmentReassembler()
        #expect(try insert(Fragments.fragment(datagram[1000...], offset: 1000, more: false), into: &reassembler) == .held)
        let shorterEnd = Fragments.fragment(datagram[1000..<1500], offset: 1000, more: false)
        #expect(try insert(shorterEnd, into: &reassembler) == .refused(.inconsistent))
        #expect(reassembler.heldDatagrams == 0)
    }

    @Test func refusesAFragmentTheCaptureCutShort() throws {
        let datagram = Fragments.datagram(count: 2000, to: Fragments.v4Client)
        var reassembler = IPFragmentReassembler()
        let cut = Fragments.fragment(datagram[0..<1000], offset: 0, more: true, truncateBy: 100)
        #expect(try insert(cut, into: &reassembler) == .refused(.truncated))
    }

    @Test func cutsAnIPv4FragmentToEightByteUnitsAndRefusesAnIPv6One() throws {
        let v4 = Fragments.datagram(count: 1500, to: Fragments.v4Client)
        var reassembler = IPFragmentReassembler()
        // 1003 bytes marked "more": the kernel keeps 1000 of them; the rest must come again.
        #expect(try insert(Fragments.fragment(v4[0..<1003], offset: 0, more: true), into: &reassembler) == .held)
        _ = try udpPayload(try insert(Fragments.fragment(v4[1000...], offset: 1000, more: false), into: &reassembler))
        let v6 = Fragments.datagram(count: 1500, to: Fragments.v6Client)
        #expect(try insert(Fragments.fragment(v6[0..<1003], offset: 0, more: true, v6: true), into: &reassembler)
                == .refused(.inconsistent))
    }

    @Test func readsTheFragmentFieldsOfBothFamilies() throws {
        let v4 = Fragments.fragment(ArraySlice(repeating: 0, count: 16), offset: 1480, more: true)
        let v6 = Fragments.fragment(ArraySlice(repeating: 0, count: 16), offset: 1232, more: false, v6: true)
        try v4.withUnsafeBytes { raw in
            let packet = try #require(IPPacket(raw))
            #expect(packet.fragmentOffset == 1480 && packet.moreFragments && packet.isLaterFragment && !packet.isTruncated)
        }
        try v6.withUnsafeBytes { raw in
            let packet = try #require(IPPacket(raw))
            #expect(packet.fragmentOffset == 1232 && !packet.moreFragments && packet.transport == .udp)
            #expect(packet.payload.count == 16)
        }
    }
}
