import CPcap
import Foundation
import Synchronization
import TunnelVisionWire

/// Why the passive tap could not start.
public enum InterfaceTapError: Error, Sendable, Hashable {
    case cannotOpen(interface: String, reason: String)
    case unsupportedLinkType(interface: String, linkType: Int32)
}

/// The passive input: copies the packets of an existing interface through libpcap, for labs
/// that cannot re-route through the daemon. It forwards nothing. The capture files hold raw IP,
/// so each frame's link header is cut off first; frames that carry no IP are skipped.
public final class InterfaceTap: @unchecked Sendable {
    private let handle: OpaquePointer
    private let linkType: LinkType
    private let queues: RecorderQueues
    private let counters: DatapathCounters
    private let clock: PacketClock
    private let stopping = Atomic<Bool>(false)
    /// libpcap's last counts (32-bit, they wrap), carried on into the counters' 64-bit totals.
    private var lastStatistics = pcap_stat()
    private var lastStatisticsAt: Int64 = 0

    public init(interface: String, snapshotLength: Int, queues: RecorderQueues,
                counters: DatapathCounters, clock: PacketClock) throws(InterfaceTapError) {
        var errors = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard let handle = pcap_create(interface, &errors) else {
            throw .cannotOpen(interface: interface, reason: String(decoding: errors.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        // Room for the link header in front of a full snapshot (Ethernet with a few VLAN tags).
        pcap_set_snaplen(handle, Int32(clamping: snapshotLength + 64))
        pcap_set_immediate_mode(handle, 1)
        pcap_set_buffer_size(handle, 32 * 1024 * 1024)
        pcap_set_timeout(handle, 100)
        guard pcap_activate(handle) >= 0 else {
            let reason = String(cString: pcap_geterr(handle))
            pcap_close(handle)
            throw .cannotOpen(interface: interface, reason: reason)
        }
        // libpcap speaks DLT numbers, where raw IP is 12 (14 on OpenBSD), not the file format's 101.
        let dataLink = pcap_datalink(handle)
        let linkType = dataLink == 12 || dataLink == 14 ? LinkType.raw : LinkType(rawValue: UInt32(truncatingIfNeeded: dataLink))
        guard LinkType.supported.contains(linkType) else {
            pcap_close(handle)
            throw .unsupportedLinkType(interface: interface, linkType: Int32(truncatingIfNeeded: linkType.rawValue))
        }
        self.linkType = linkType
        self.handle = handle
        self.queues = queues
        self.counters = counters
        self.clock = clock
        counters.countsTapDrops.store(true, ordering: .releasing)
    }

    deinit { pcap_close(handle) }

    public func stop() {
        stopping.store(true, ordering: .releasing)
        pcap_breakloop(handle)
    }

    /// Runs until `stop()`; meant for a thread of its own.
    public func run() {
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        defer { readStatistics() }
        while !stopping.load(ordering: .acquiring) {
            counters.loops.add(1, ordering: .relaxed)
            // At most once a second; pcap_next_ex returns at least every 100 ms (the timeout).
            if clock.now() - lastStatisticsAt >= 1_000_000_000 { readStatistics() }
            let result = pcap_next_ex(handle, &header, &data)
            guard result == 1, let header, let data else {
                if result < 0 { usleep(10_000) }
                continue
            }
            let frame = UnsafeRawBufferPointer(start: data, count: Int(header.pointee.caplen))
            guard let packet = linkType.networkPayload(of: frame), !packet.isEmpty else { continue }
            let wireLength = Int(header.pointee.len) - (frame.count - packet.count)
            counters.packetsSeen.add(1, ordering: .relaxed)
            counters.bytesSeen.add(UInt64(max(0, wireLength)), ordering: .relaxed)
            queues.offer(packet, wireLength: wireLength, timestampNanoseconds: clock.now(), counters: counters)
        }
    }

    /// Adds what libpcap counted as dropped since the last read to the counters.
    private func readStatistics() {
        lastStatisticsAt = clock.now()
        var statistics = pcap_stat()
        guard pcap_stats(handle, &statistics) == 0 else { return }
        counters.tapKernelDrops.add(UInt64(statistics.ps_drop &- lastStatistics.ps_drop), ordering: .relaxed)
        counters.tapInterfaceDrops.add(UInt64(statistics.ps_ifdrop &- lastStatistics.ps_ifdrop), ordering: .relaxed)
        lastStatistics = statistics
    }
}
