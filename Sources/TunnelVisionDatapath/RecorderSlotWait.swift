import Glibc
import Synchronization
import TunnelVisionDaemonLog
import TunnelVisionModel

/// Where the inline tap gets the slot it reads the next packet into. With
/// `RecorderBacklog.wait` a packet is read from the TUN device — and so forwarded — only once
/// it has a slot: while the recorder is behind the device's queue fills and the kernel makes the
/// phone's TCP slow down, rather than the capture thinning out. The wait is bounded: a recorder
/// that frees no slot for the whole bound (a hung disk, a history locked by another writer) is
/// taken as stuck, and packets are forwarded at once as rows without bytes until it has emptied
/// half its queue again, so the phone never loses its connection. Each stuck spell is said twice,
/// as it starts and as it ends, with the counts the heartbeat and `packet_losses` hold.
///
/// Owned by the input thread; `now` and `pause` are handed in so that tests can drive it. By
/// default a pause sleeps until the recorder rings the ring's `freed` bell (or a few ms pass,
/// for the bound): the tap costs nothing while it waits and moves as soon as there is room.
public final class RecorderSlotWait {
    private let ring: PacketRing
    private let backlog: RecorderBacklog
    private let boundNanoseconds: Int64
    private let counters: DatapathCounters
    private let log: DaemonLog
    private let now: () -> Int64
    private let pause: () -> Void
    /// Set while the recorder is taken as stuck: when it began, and the counters then.
    private var stuck: (since: Int64, withoutBytes: UInt64, withoutRow: UInt64)?

    public init(ring: PacketRing, backlog: RecorderBacklog, waitMilliseconds: Int, counters: DatapathCounters, log: DaemonLog,
                now: @escaping () -> Int64, pause: (() -> Void)? = nil) {
        self.ring = ring
        self.backlog = backlog
        boundNanoseconds = Int64(max(0, waitMilliseconds)) * 1_000_000
        self.counters = counters
        self.log = log
        self.now = now
        self.pause = pause ?? { [ring] in
            ring.freed.wait(timeoutNanoseconds: Self.pauseNanoseconds) { ring.reserve() != nil }
        }
    }

    /// The longest a pause sleeps without a ring: how finely the bound is kept.
    static let pauseNanoseconds: Int64 = 5_000_000

    /// Ends a stuck spell once the recorder has emptied half its queue; called with every packet
    /// and whenever the tap's loop comes round, so an end is said even when no packet follows.
    public func noteProgress() {
        guard let spell = stuck, ring.depth <= ring.slotCount / 2 else { return }
        stuck = nil
        let (forwarded, withoutRow) = counts(since: spell)
        log.say(.recorderCaughtUp(afterNanoseconds: now() - spell.since, forwarded: forwarded, withoutRow: withoutRow))
    }

    /// At the tap's stop: a spell still open is said with its counts.
    public func finish() {
        guard let spell = stuck else { return }
        stuck = nil
        let (forwarded, withoutRow) = counts(since: spell)
        log.say(.recorderStuckAtStop(afterNanoseconds: now() - spell.since, forwarded: forwarded, withoutRow: withoutRow))
    }

    private func counts(since spell: (since: Int64, withoutBytes: UInt64, withoutRow: UInt64)) -> (UInt64, UInt64) {
        (counters.queueFull.load(ordering: .relaxed) &- spell.withoutBytes, counters.unrecorded.load(ordering: .relaxed) &- spell.withoutRow)
    }

    /// Whether packets are being forwarded without waiting because the recorder is stuck.
    public var recorderTakenAsStuck: Bool { stuck != nil }

    /// A free slot, or nil when the packet is to be forwarded without one: at once when the
    /// backlog says forward or the recorder is stuck, after the bound when it has just stuck.
    public func nextSlot() -> UnsafeMutableRawBufferPointer? {
        noteProgress()
        if let slot = ring.reserve() { return slot }
        guard backlog == .wait, stuck == nil else { return nil }
        let start = now()
        counters.slotWaits.add(1, ordering: .relaxed)
        while true {
            pause()
            if let slot = ring.reserve() { return slot }
            let waited = now() - start
            if waited >= boundNanoseconds {
                stuck = (start, counters.queueFull.load(ordering: .relaxed), counters.unrecorded.load(ordering: .relaxed))
                counters.recorderStuck.add(1, ordering: .relaxed)
                log.say(.recorderStuck(waitedMilliseconds: Int(waited / 1_000_000)))
                return nil
            }
        }
    }
}
