import Foundation
import Synchronization
import TunnelVisionDaemonLog
import TunnelVisionModel
import TunnelVisionWire

/// The inline tap's own thread: reads every packet from the TUN device in batches, writes it
/// straight back for the kernel to route on, and only then offers it to the recorder. Nothing
/// here waits for the disk or the database, and nothing allocates per packet.
public final class TunForwarder: @unchecked Sendable {
    private let device: TunDevice
    private let queues: RecorderQueues
    private let slots: RecorderSlotWait
    private let counters: DatapathCounters
    private let clock: PacketClock
    private let stopping = Atomic<Bool>(false)
    private let scratch: UnsafeMutableRawBufferPointer
    private let log: DaemonLog
    /// Packets whose virtio-net header did not fit them: forwarded as they came, captured whole.
    private var headersNotUnderstood: UInt64 = 0

    public init(device: TunDevice, queues: RecorderQueues, counters: DatapathCounters, clock: PacketClock,
                backlog: RecorderBacklog = .wait, waitMilliseconds: Int = RecorderBacklog.defaultWaitMilliseconds,
                log: DaemonLog = DaemonLog()) {
        self.device = device
        self.queues = queues
        slots = RecorderSlotWait(ring: queues.packets, backlog: backlog, waitMilliseconds: waitMilliseconds,
                                 counters: counters, log: log, now: clock.now)
        self.counters = counters
        self.clock = clock
        self.log = log
        scratch = .allocate(byteCount: queues.packets.slotCapacity, alignment: 64)
    }

    deinit { scratch.deallocate() }

    public func stop() { stopping.store(true, ordering: .releasing) }

    public var virtioHeaderLength: Int { device.headerLength }

    /// Runs until `stop()`; meant for a thread of its own.
    public func run() {
        var descriptor = pollfd(fd: device.descriptor, events: Int16(POLLIN), revents: 0)
        defer {
            slots.finish()
            if headersNotUnderstood > 0 {
                log.say(.offloadHeadersNotUnderstood(device: device.name, packets: headersNotUnderstood))
            }
        }
        while !stopping.load(ordering: .acquiring) {
            counters.loops.add(1, ordering: .relaxed)
            slots.noteProgress()
            guard poll(&descriptor, 1, 100) > 0 else { continue }
            for _ in 0..<256 where !forwardOne() { break }
        }
    }

    /// Moves one packet; false when the device had nothing more to read.
    private func forwardOne() -> Bool {
        // Read straight into the recorder's next slot: no copy on the way. Evidence first, the
        // packet is not even read before it has one (bounded; see RecorderSlotWait).
        let slot = slots.nextSlot()
        let buffer = slot ?? scratch
        let length = read(device.descriptor, buffer.baseAddress, buffer.count)
        guard length > 0 else { return false }
        if write(device.descriptor, buffer.baseAddress, length) != length {
            counters.forwardFailures.add(1, ordering: .relaxed)
        }
        let stamp = clock.now()
        let start = device.headerLength
        guard length > start else { return true }
        counters.packetsSeen.add(1, ordering: .relaxed)
        counters.bytesSeen.add(UInt64(length - start), ordering: .relaxed)
        if start > 0 { checkHeader(UnsafeRawBufferPointer(rebasing: buffer[0..<length])) }
        if slot != nil {
            // The virtio-net header stays in front: the recorder cuts by it what the wire carried.
            queues.packets.publish(start: 0, length: length, wireLength: length - start, timestampNanoseconds: stamp)
        } else {
            // Only a row is made of it, not captured: the header has nothing more to say.
            queues.offerHeaders(UnsafeRawBufferPointer(rebasing: buffer[start..<length]), wireLength: length - start,
                                timestampNanoseconds: stamp, counters: counters)
        }
        return true
    }

    /// A header the recorder cannot cut by still leaves the packet's every byte in the capture
    /// (`OffloadedPacket` hands it over whole); it is counted here, where it was read, and said.
    private func checkHeader(_ bytes: UnsafeRawBufferPointer) {
        let header = UnsafeRawBufferPointer(rebasing: bytes[0..<device.headerLength])
        let packet = UnsafeRawBufferPointer(rebasing: bytes[device.headerLength...])
        guard OffloadedPacket.verdict(virtioHeader: header, packet: packet) == .notUnderstood else { return }
        if headersNotUnderstood == 0 { log.say(.offloadHeaderNotUnderstood(device: device.name)) }
        headersNotUnderstood += 1
    }
}
