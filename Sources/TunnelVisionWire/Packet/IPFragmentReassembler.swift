import TunnelVisionModel

/// Puts fragmented IP datagrams back together the way the receiving kernel does (Linux's
/// `ip_fragment.c` and IPv6 `reassembly.c`), so that the engine reads what the phone or the
/// server was handed, and nothing a kernel would have thrown away:
///
/// - fragments belong together by source, destination, protocol and identification;
/// - a fragment wholly inside bytes already held is a duplicate and is ignored; any other
///   overlap discards the whole datagram (RFC 5722 for IPv6; Linux does the same for IPv4);
/// - a last fragment that moves an end already known, bytes past the known end, an empty
///   fragment, a datagram over 65,535 bytes discard it too; an IPv6 fragment other than the last
///   whose length is not a multiple of 8 is refused (RFC 8200 § 4.5), an IPv4 one is cut down to
///   a multiple of 8 (RFC 791);
/// - a datagram not complete within the timeout from its first fragment is dropped (30 s for
///   IPv4, 60 s for IPv6: `ipfrag_time` and `ip6frag_time`).
///
/// Bounded: a memory budget over all datagrams held (the kernel's `ipfrag_high_thresh`, 4 MiB),
/// a number of datagrams held at once, and a number of fragments per datagram beyond what a
/// 65,535-byte datagram needs over a 576-byte path. Past a bound the fragment is refused, as the
/// kernel refuses to open queues past its threshold.
public struct IPFragmentReassembler {
    public struct Limits: Sendable, Hashable {
        public var memoryBudget = 4 * 1024 * 1024
        public var maximumDatagrams = 1024
        public var maximumFragmentsPerDatagram = 128
        public var timeoutV4Nanoseconds: Int64 = 30_000_000_000
        public var timeoutV6Nanoseconds: Int64 = 60_000_000_000

        public init() {}
    }

    public enum Refusal: Sendable, Hashable {
        /// Bytes overlapping others that differ in extent: the datagram is discarded.
        case overlap
        /// The datagram would pass 65,535 bytes.
        case oversize
        /// An end that moves, bytes past the end, an empty or misaligned fragment.
        case inconsistent
        /// More fragments than one datagram needs.
        case tooManyFragments
        /// The memory budget or the number of datagrams held is spent.
        case overBudget
        /// The capture cut the fragment short: its bytes cannot be placed.
        case truncated
    }

    public enum Outcome: Sendable, Hashable {
        /// Kept; the datagram is not whole yet.
        case held
        /// A copy of bytes already held: ignored.
        case duplicate
        /// The whole datagram, as an IP packet of its own (a plain header, no fragmentation).
        case reassembled([UInt8])
        /// The fragment was refused; where the refusal discards the datagram, its other fragments went too.
        case refused(Refusal)
    }

    public struct Statistics: Sendable, Hashable {
        public var reassembled: UInt64 = 0
        public var refused: UInt64 = 0
        public var expired: UInt64 = 0
        public init() {}
    }

    private struct Key: Hashable {
        let source: IPAddress
        let destination: IPAddress
        let proto: UInt8
        let identifier: UInt32
    }

    private struct Datagram {
        let started: Int64
        /// Pieces sorted by offset, never overlapping.
        var pieces: [(offset: Int, bytes: [UInt8])] = []
        var fragments = 0
        /// The payload's length, once the last fragment said it.
        var end: Int?
        var memory = 0
    }

    /// What a held fragment costs beyond its bytes, so that a flood of tiny fragments is bounded too.
    static let fragmentOverhead = 64
    private static let maximumDatagramLength = 65_535

    public let limits: Limits
    public private(set) var statistics = Statistics()
    private var datagrams: [Key: Datagram] = [:]
    /// Bytes held, overhead included.
    public private(set) var memory = 0
    private var lastSweep: Int64 = .min

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    public var heldDatagrams: Int { datagrams.count }

    /// Takes one fragment (a packet whose `fragmentIdentifier` is set; any other is refused as
    /// inconsistent) seen at `now`.
    public mutating func insert(_ packet: IPPacket, at now: Int64) -> Outcome {
        guard let identifier = packet.fragmentIdentifier else { return refuse(.inconsistent) }
        sweepExpired(at: now)
        let key = Key(source: packet.source, destination: packet.destination,
                      proto: packet.transport.rawValue, identifier: identifier)
        if let held = datagrams[key], Self.elapsed(from: held.started, to: now) > timeout(for: packet) {
            drop(key)
            statistics.expired += 1
        }
        guard !packet.isTruncated else { return discard(key, .truncated) }
        let v4 = packet.source.family == .v4
        var count = packet.payload.count
        if packet.moreFragments, count % 8 != 0 {
            guard v4 else { return discard(key, .inconsistent) }
            count &= ~7
        }
        let offset = packet.fragmentOffset
        let end = offset + count
        // The whole IPv4 packet counts its header; IPv6's limit is on the payload (RFC 8200 § 4.5).
        guard end + (v4 ? 20 : 0) <= Self.maximumDatagramLength else { return discard(key, .oversize) }
        guard count > 0 else { return discard(key, .inconsistent) }

        var datagram: Datagram
        if let held = datagrams[key] {
            datagram = held
        } else {
            guard datagrams.count < limits.maximumDatagrams else { return refuse(.overBudget) }
            datagram = Datagram(started: now)
        }
        let held = datagram.pieces.last.map { $0.offset + $0.bytes.count } ?? 0
        if !packet.moreFragments {
            guard end >= held, datagram.end == nil || datagram.end == end else { return discard(key, .inconsistent) }
            datagram.end = end
        } else if let known = datagram.end, end > known {
            return discard(key, .inconsistent)
        }
        // Binary search is not worth it: a datagram holds at most a few dozen pieces.
        var index = datagram.pieces.count
        for (position, piece) in datagram.pieces.enumerated() {
            let pieceEnd = piece.offset + piece.bytes.count
            if end <= piece.offset {
                index = position
                break
            }
            if offset >= pieceEnd { continue }
            if offset >= piece.offset, end <= pieceEnd {
                datagrams[key] = datagram
                return .duplicate
            }
            return discard(key, .overlap)
        }
        guard datagram.fragments < limits.maximumFragmentsPerDatagram else { return discard(key, .tooManyFragments) }
        let cost = count + Self.fragmentOverhead
        guard memory + cost <= limits.memoryBudget else {
            if datagram.fragments > 0 { datagrams[key] = datagram }
            return refuse(.overBudget)
        }
        datagram.pieces.insert((offset, Array(packet.payload.prefix(count))), at: index)
        datagram.fragments += 1
        datagram.memory += cost
        memory += cost
        datagrams[key] = datagram
        guard let whole = Self.wholePayload(of: datagram) else { return .held }
        drop(key)
        statistics.reassembled += 1
        return .reassembled(Self.packet(source: packet.source, destination: packet.destination,
                                        proto: packet.transport.rawValue, identifier: identifier, payload: whole))
    }

    /// Drops every datagram older than its timeout (at most once a second of capture time: the
    /// check on arrival keeps a late fragment from joining an expired datagram in between).
    public mutating func sweepExpired(at now: Int64) {
        guard Self.elapsed(from: lastSweep, to: now) >= 1_000_000_000 else { return }
        lastSweep = now
        for (key, datagram) in datagrams where Self.elapsed(from: datagram.started, to: now) > timeout(v4: key.source.family == .v4) {
            drop(key)
            statistics.expired += 1
        }
    }

    /// Nanoseconds from one instant to a later one, saturated: a capture's clock is not trusted.
    private static func elapsed(from start: Int64, to now: Int64) -> Int64 {
        let (difference, overflow) = now.subtractingReportingOverflow(start)
        return overflow ? (now > start ? .max : .min) : difference
    }

    private func timeout(for packet: IPPacket) -> Int64 { timeout(v4: packet.source.family == .v4) }

    private func timeout(v4: Bool) -> Int64 { v4 ? limits.timeoutV4Nanoseconds : limits.timeoutV6Nanoseconds }

    private mutating func refuse(_ refusal: Refusal) -> Outcome {
        statistics.refused += 1
        return .refused(refusal)
    }

    private mutating func discard(_ key: Key, _ refusal: Refusal) -> Outcome {
        drop(key)
        return refuse(refusal)
    }

    private mutating func drop(_ key: Key) {
        guard let datagram = datagrams.removeValue(forKey: key) else { return }
        memory -= datagram.memory
    }

    /// The payload, once the pieces run without a gap from 0 to the known end.
    private static func wholePayload(of datagram: Datagram) -> [UInt8]? {
        guard let end = datagram.end else { return nil }
        var next = 0
        for piece in datagram.pieces {
            guard piece.offset == next else { return nil }
            next += piece.bytes.count
        }
        guard next == end else { return nil }
        var whole: [UInt8] = []
        whole.reserveCapacity(end)
        for piece in datagram.pieces { whole += piece.bytes }
        return whole
    }

    /// An unfragmented packet around the payload: a 20-byte IPv4 header (options are not kept)
    /// or a 40-byte IPv6 header whose next header is what the fragment header named.
    private static func packet(
        source: IPAddress, destination: IPAddress, proto: UInt8, identifier: UInt32, payload: [UInt8]
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        if source.family == .v4 {
            let total = 20 + payload.count
            bytes = [0x45, 0, UInt8(total >> 8), UInt8(total & 0xFF), UInt8(identifier >> 8 & 0xFF), UInt8(identifier & 0xFF),
                     0, 0, 64, proto, 0, 0]
            append(UInt32(truncatingIfNeeded: source.low), to: &bytes)
            append(UInt32(truncatingIfNeeded: destination.low), to: &bytes)
        } else {
            bytes = [0x60, 0, 0, 0, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF), proto, 64]
            for word in [source.high, source.low, destination.high, destination.low] {
                append(UInt32(truncatingIfNeeded: word >> 32), to: &bytes)
                append(UInt32(truncatingIfNeeded: word), to: &bytes)
            }
        }
        return bytes + payload
    }

    private static func append(_ word: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(word >> 24), UInt8(word >> 16 & 0xFF), UInt8(word >> 8 & 0xFF), UInt8(word & 0xFF)]
    }
}
