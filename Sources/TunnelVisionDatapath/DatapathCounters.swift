import Glibc
import Synchronization

/// What the input thread counts, read once a second by the recorder for the heartbeat.
public final class DatapathCounters: Sendable {
    public let packetsSeen = Atomic<UInt64>(0)
    public let bytesSeen = Atomic<UInt64>(0)
    /// Packets the recorder had no room for: forwarded, and stored as not captured.
    public let queueFull = Atomic<UInt64>(0)
    /// Packets for which not even a row could be kept (both queues full): forwarded only.
    public let unrecorded = Atomic<UInt64>(0)
    /// Packets the inline tap held back until the recorder freed a slot (evidence first).
    public let slotWaits = Atomic<UInt64>(0)
    /// Times the recorder freed no slot within the bound and packets went on without waiting.
    public let recorderStuck = Atomic<UInt64>(0)
    /// The passive tap's libpcap counts since it opened: packets the kernel dropped
    /// because the capture buffer was full, and packets the interface dropped. Only an input that
    /// has such counts sets `countsTapDrops`.
    public let countsTapDrops = Atomic<Bool>(false)
    public let tapKernelDrops = Atomic<UInt64>(0)
    public let tapInterfaceDrops = Atomic<UInt64>(0)
    /// Packets the kernel refused when written back into the TUN device.
    public let forwardFailures = Atomic<UInt64>(0)
    /// Rises while the input thread runs; the watchdog is fed only while it moves.
    public let loops = Atomic<UInt64>(0)

    public init() {}
}

/// Wall-clock nanoseconds from the monotonic clock, anchored once per capture session, so a
/// clock step during a capture does not reorder its packets.
public struct PacketClock: Sendable {
    private let offset: Int64

    public init() {
        offset = Self.read(CLOCK_REALTIME) - Self.read(CLOCK_MONOTONIC)
    }

    public func now() -> Int64 { Self.read(CLOCK_MONOTONIC) &+ offset }

    static func read(_ clock: clockid_t) -> Int64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    }
}
