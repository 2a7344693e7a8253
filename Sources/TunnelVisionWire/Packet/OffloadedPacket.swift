/// What would have crossed the wire for a packet a TUN device handed over with segmentation
/// offload: its virtio-net header (virtio 1.x § 5.1.6, little-endian on the hosts we run on) may
/// say it is a TCP or UDP super-packet to be cut into segments of `gso_size` bytes, or that its
/// transport checksum was left partial. Each segment gets its own IP length, IPv4 identifier
/// and header checksum, TCP sequence number and flags, and a full transport checksum.
///
/// A header that does not add up (lengths outside the packet, a protocol it does not name) hands
/// the packet over as it came: nothing is invented.
public enum OffloadedPacket {
    public static let virtioHeaderLength = 10
    /// Beyond this many segments a header is taken for nonsense (64 KiB in segments of 16 bytes).
    public static let maximumSegments = 4096

    private enum GSOType {
        static let none: UInt8 = 0
        static let tcpIPv4: UInt8 = 1
        static let tcpIPv6: UInt8 = 4
        static let udpL4: UInt8 = 5
    }

    private static let needsChecksum: UInt8 = 0x01

    /// Calls `body` with each packet the wire would have carried, built in `scratch` (which must
    /// hold a whole packet) or, when nothing needs doing, `packet` itself.
    public static func forEachSegment(
        virtioHeader header: UnsafeRawBufferPointer, packet: UnsafeRawBufferPointer,
        scratch: UnsafeMutableRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void
    ) {
        // Most packets need nothing: neither cut nor checksum left to do.
        guard header.count == virtioHeaderLength, header[0] & needsChecksum != 0 || header[1] & 0x7F != GSOType.none,
              scratch.count >= packet.count, let layout = Layout(packet) else {
            body(packet)
            return
        }
        let gsoType = header[1] & 0x7F
        let gsoSize = Int(header[4]) | Int(header[5]) << 8
        let payloadLength = packet.count - layout.headerLength
        let splits: Bool
        switch gsoType {
        case GSOType.tcpIPv4, GSOType.tcpIPv6: splits = layout.transport == .tcp
        case GSOType.udpL4: splits = layout.transport == .udp
        default: splits = false
        }
        let isSane = gsoType == GSOType.none
            || (splits && gsoSize > 0 && (payloadLength + gsoSize - 1) / gsoSize <= maximumSegments)
        guard isSane else {
            body(packet)
            return
        }
        guard gsoType != GSOType.none, payloadLength > gsoSize else {
            copy(packet, into: scratch)
            let whole = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<packet.count])
            layout.finish(whole, segment: 0, isLast: true, payloadOffset: 0)
            body(UnsafeRawBufferPointer(whole))
            return
        }
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
