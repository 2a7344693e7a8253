/// What would have crossed the wire for a packet a TUN device handed over with segmentation
/// offload: its virtio-net header (virtio 1.x § 5.1.6, little-endian on the hosts we run on) may
/// say it is a TCP or UDP super-packet to be cut into segments of `gso_size` bytes, or that its
/// transport checksum was left partial. Each segment gets its own IP length, IPv4 identifier
/// and header checksum, TCP sequence number and flags, and a full transport checksum.
///
/// Every field of the header is checked against the packet before anything is done by it. A
/// header that does not add up (a field outside the packet, a checksum place that is not the
/// transport's, a type that does not name the packet's protocol) hands the packet over as it
/// came: nothing is invented, and `verdict` lets the caller count it.
public enum OffloadedPacket {
    public static let virtioHeaderLength = 10
    /// Beyond this many segments a header is taken for nonsense (64 KiB in segments of 16 bytes).
    public static let maximumSegments = 4096

    /// What a header asks of its packet, once checked.
    public enum Verdict: Sendable, Hashable {
        /// Nothing: the packet is as the wire carried it.
        case asItCame
        /// One packet whose transport checksum is to be completed.
        case completeChecksum
        /// A super-packet to be cut into segments.
        case cut
        /// A header that does not fit its packet: the packet is handed over as it came.
        case notUnderstood
    }

    private enum GSOType {
        static let none: UInt8 = 0
        static let tcpIPv4: UInt8 = 1
        static let tcpIPv6: UInt8 = 4
        static let udpL4: UInt8 = 5
        /// VIRTIO_NET_HDR_GSO_ECN: the super-packet carries CWR; only TCP has it.
        static let ecn: UInt8 = 0x80
    }

    private static let needsChecksum: UInt8 = 0x01
    /// VIRTIO_NET_HDR_F_DATA_VALID: the kernel checked the checksum already; nothing to do.
    private static let dataValid: UInt8 = 0x02

    /// The header's fields (flags, gso_type, hdr_len, gso_size, csum_start, csum_offset), each
    /// checked against the packet.
    public static func verdict(virtioHeader header: UnsafeRawBufferPointer, packet: UnsafeRawBufferPointer) -> Verdict {
        check(header, packet).verdict
    }

    private static func check(_ header: UnsafeRawBufferPointer, _ packet: UnsafeRawBufferPointer) -> (verdict: Verdict, layout: Layout?) {
        guard header.count == virtioHeaderLength else { return (.notUnderstood, nil) }
        func field(_ offset: Int) -> Int { Int(header[offset]) | Int(header[offset + 1]) << 8 }
        let flags = header[0], gsoType = header[1] & ~GSOType.ecn, hasECN = header[1] & GSOType.ecn != 0
        let (headerLength, gsoSize, checksumStart, checksumOffset) = (field(2), field(4), field(6), field(8))
        guard flags & ~(needsChecksum | dataValid) == 0 else { return (.notUnderstood, nil) }
        if flags & needsChecksum == 0, header[1] == GSOType.none { return (.asItCame, nil) }
        guard let layout = Layout(packet) else { return (.notUnderstood, nil) }
        if flags & needsChecksum != 0 {
            let field = layout.transport == .tcp ? 16 : 6
            guard checksumStart == layout.transportOffset, checksumOffset == field,
                  checksumStart + checksumOffset + 2 <= packet.count else { return (.notUnderstood, nil) }
        }
        guard gsoType != GSOType.none else { return hasECN ? (.notUnderstood, nil) : (.completeChecksum, layout) }
        let names: Bool
        switch gsoType {
        case GSOType.tcpIPv4: names = layout.transport == .tcp && !layout.isIPv6
        case GSOType.tcpIPv6: names = layout.transport == .tcp && layout.isIPv6
        case GSOType.udpL4: names = layout.transport == .udp && !hasECN
        default: names = false
        }
        let payloadLength = packet.count - layout.headerLength
        // A super-packet always leaves its checksum partial; a segment must fit an IP length field.
        guard names, flags & needsChecksum != 0, gsoSize > 0, headerLength <= packet.count,
              layout.headerLength + gsoSize <= 65_535,
              (payloadLength + gsoSize - 1) / gsoSize <= maximumSegments else { return (.notUnderstood, nil) }
        return (payloadLength > gsoSize ? .cut : .completeChecksum, layout)
    }

    /// Calls `body` with each packet the wire would have carried, built in `scratch` (which must
    /// hold a whole packet) or, when nothing needs doing or the header is not understood, `packet` itself.
    public static func forEachSegment(
        virtioHeader header: UnsafeRawBufferPointer, packet: UnsafeRawBufferPointer,
        scratch: UnsafeMutableRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void
    ) {
        let (verdict, layout) = check(header, packet)
        guard let layout, verdict != .asItCame, verdict != .notUnderstood, scratch.count >= packet.count else {
            body(packet)
            return
        }
        guard verdict == .cut else {
            copy(packet, into: scratch)
            let whole = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<packet.count])
            layout.finish(whole, segment: 0, isLast: true, payloadOffset: 0)
            body(UnsafeRawBufferPointer(whole))
            return
        }
        let gsoSize = Int(header[4]) | Int(header[5]) << 8
        let payloadLength = packet.count - layout.headerLength
        let headers = UnsafeRawBufferPointer(rebasing: packet[0..<layout.headerLength])
        var offset = 0
        var index = 0
        while offset < payloadLength {
            let count = min(gsoSize, payloadLength - offset)
            copy(headers, into: scratch)
            let payload = UnsafeRawBufferPointer(rebasing: packet[(layout.headerLength + offset)..<(layout.headerLength + offset + count)])
            copy(payload, into: UnsafeMutableRawBufferPointer(rebasing: scratch[layout.headerLength...]))
            let segment = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<(layout.headerLength + count)])
            layout.finish(segment, segment: index, isLast: offset + count == payloadLength, payloadOffset: offset)
            body(UnsafeRawBufferPointer(segment))
            offset += count
            index += 1
        }
    }

    private static func copy(_ bytes: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer) {
        guard let source = bytes.baseAddress, let destination = target.baseAddress, !bytes.isEmpty else { return }
        destination.copyMemory(from: source, byteCount: bytes.count)
    }
}

/// Where an offloaded packet's headers lie: IPv4 or IPv6 without extension headers, then TCP or UDP.
private struct Layout {
    enum Transport { case tcp, udp }

    let isIPv6: Bool
    let transportOffset: Int
    let headerLength: Int
    let transport: Transport

    init?(_ packet: UnsafeRawBufferPointer) {
        guard let first = packet.first else { return nil }
        let next: UInt8
        switch first >> 4 {
        case 4:
            let ihl = Int(first & 0x0F) * 4
            guard ihl >= 20, packet.count >= ihl else { return nil }
            // A fragment is not a super-packet's segment to cut or complete.
            guard packet[6] & 0x3F == 0, packet[7] == 0 else { return nil }
            (isIPv6, transportOffset, next) = (false, ihl, packet[9])
        case 6:
            guard packet.count >= 40 else { return nil }
            (isIPv6, transportOffset, next) = (true, 40, packet[6])
        default:
            return nil
        }
        switch next {
        case 6:
            guard packet.count >= transportOffset + 20 else { return nil }
            let length = Int(packet[transportOffset + 12] >> 4) * 4
            guard length >= 20, packet.count >= transportOffset + length else { return nil }
            (transport, headerLength) = (.tcp, transportOffset + length)
        case 17:
            guard packet.count >= transportOffset + 8 else { return nil }
            (transport, headerLength) = (.udp, transportOffset + 8)
        default:
            return nil
        }
    }

    /// Writes the lengths, identifier, sequence number, flags and checksums of segment `segment`
    /// (the whole of `bytes`), whose payload began `payloadOffset` bytes into the super-packet's.
    func finish(_ bytes: UnsafeMutableRawBufferPointer, segment: Int, isLast: Bool, payloadOffset: Int) {
        let total = bytes.count
        if isIPv6 {
            store16(UInt16(truncatingIfNeeded: total - 40), at: 4, in: bytes)
        } else {
            store16(UInt16(truncatingIfNeeded: total), at: 2, in: bytes)
            store16(load16(at: 4, in: bytes) &+ UInt16(truncatingIfNeeded: segment), at: 4, in: bytes)
            store16(0, at: 10, in: bytes)
            store16(~Checksum.fold(Checksum.sum(UnsafeRawBufferPointer(rebasing: bytes[0..<transportOffset]))), at: 10, in: bytes)
        }
        let transportLength = total - transportOffset
        let checksumAt: Int
        switch transport {
        case .tcp:
            let sequence = load32(at: transportOffset + 4, in: bytes) &+ UInt32(truncatingIfNeeded: payloadOffset)
            store32(sequence, at: transportOffset + 4, in: bytes)
            let fin: UInt8 = 0x01, psh: UInt8 = 0x08, cwr: UInt8 = 0x80
            if !isLast { bytes[transportOffset + 13] &= ~(fin | psh) }
            if segment > 0 { bytes[transportOffset + 13] &= ~cwr }
            checksumAt = transportOffset + 16
        case .udp:
            store16(UInt16(truncatingIfNeeded: transportLength), at: transportOffset + 4, in: bytes)
            checksumAt = transportOffset + 6
        }
        store16(0, at: checksumAt, in: bytes)
        var sum = pseudoHeaderSum(bytes, transportLength: transportLength)
        sum &+= Checksum.sum(UnsafeRawBufferPointer(rebasing: bytes[transportOffset...]))
        var checksum = ~Checksum.fold(sum)
        if transport == .udp, checksum == 0 { checksum = 0xFFFF }  // RFC 768: zero means none
        store16(checksum, at: checksumAt, in: bytes)
    }

    private func pseudoHeaderSum(_ bytes: UnsafeMutableRawBufferPointer, transportLength: Int) -> UInt64 {
        let addresses = isIPv6
            ? UnsafeRawBufferPointer(rebasing: bytes[8..<40]) : UnsafeRawBufferPointer(rebasing: bytes[12..<20])
        let proto: UInt64 = transport == .tcp ? 6 : 17
        return Checksum.sum(addresses) &+ proto &+ UInt64(transportLength)
    }

    private func load16(at offset: Int, in bytes: UnsafeMutableRawBufferPointer) -> UInt16 {
        UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    private func load32(at offset: Int, in bytes: UnsafeMutableRawBufferPointer) -> UInt32 {
        UInt32(load16(at: offset, in: bytes)) << 16 | UInt32(load16(at: offset + 2, in: bytes))
    }

    private func store16(_ value: UInt16, at offset: Int, in bytes: UnsafeMutableRawBufferPointer) {
        bytes[offset] = UInt8(value >> 8)
        bytes[offset + 1] = UInt8(value & 0xFF)
    }

    private func store32(_ value: UInt32, at offset: Int, in bytes: UnsafeMutableRawBufferPointer) {
        store16(UInt16(value >> 16), at: offset, in: bytes)
        store16(UInt16(value & 0xFFFF), at: offset + 2, in: bytes)
    }
}

/// The Internet checksum (RFC 1071): a ones'-complement sum of 16-bit words.
public enum Checksum {
    /// The sum of the bytes as big-endian words (an odd last byte padded with zero), unfolded.
    public static func sum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var total: UInt64 = 0
        var index = 0
        let count = bytes.count
        // Eight bytes at a time: the sum of 32-bit words folds to the same 16-bit sum.
        while index + 8 <= count {
            let word = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            total &+= (word >> 32) &+ (word & 0xFFFF_FFFF)
            index += 8
        }
        while index + 1 < count {
            total &+= UInt64(bytes[index]) << 8 | UInt64(bytes[index + 1])
            index += 2
        }
        if index < count { total &+= UInt64(bytes[index]) << 8 }
        return total
    }

    public static func fold(_ sum: UInt64) -> UInt16 {
        var value = sum
        while value >> 16 != 0 { value = (value & 0xFFFF) + (value >> 16) }
        return UInt16(value)
    }
}
