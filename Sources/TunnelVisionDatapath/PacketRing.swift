import Synchronization

/// A bounded queue of packets from one producer thread to one consumer thread, allocated once.
/// The producer reads straight into a slot, so a packet is never copied on its way to the
/// recorder; when every slot is taken the producer learns it at once and never waits.
///
/// Neither side polls: the consumer sleeps on `filled` until a packet is published, a producer that
/// chooses to wait for room sleeps on `freed`. The consumer rings `freed` once per eighth of the
/// ring it empties, not per slot, so a producer held at a full ring wakes to a run of free slots
/// instead of trading one wake-up per packet.
public final class PacketRing: @unchecked Sendable {
    public let slotCount: Int
    public let slotCapacity: Int
    /// Rung with every publish; may be shared by rings that one consumer drains.
    public let filled: Doorbell
    /// Rung as the consumer frees slots.
    public let freed = Doorbell()
    private let freedPerRing: Int
    private let storage: UnsafeMutableRawPointer
    private let starts: UnsafeMutablePointer<Int>
    private let lengths: UnsafeMutablePointer<Int>
    private let wireLengths: UnsafeMutablePointer<Int>
    private let stamps: UnsafeMutablePointer<Int64>
    // Monotonic counters; a slot's index is the counter modulo the slot count.
    private let published = Atomic<Int>(0)
    private let consumed = Atomic<Int>(0)

    public init(slotCount: Int, slotCapacity: Int, filled: Doorbell = Doorbell()) {
        self.slotCount = max(1, slotCount)
        self.slotCapacity = max(1, slotCapacity)
        self.filled = filled
        freedPerRing = max(1, self.slotCount / 8)
        storage = .allocate(byteCount: self.slotCount * self.slotCapacity, alignment: 64)
        // Touched once here, at start: otherwise the first pass over the ring takes a page fault
        // (and a page cleared) per 4 KiB on the packet path, as the TUN is read into each slot.
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: self.slotCount * self.slotCapacity)
        starts = .allocate(capacity: self.slotCount)
        lengths = .allocate(capacity: self.slotCount)
        wireLengths = .allocate(capacity: self.slotCount)
        stamps = .allocate(capacity: self.slotCount)
    }

    deinit {
        storage.deallocate()
        starts.deallocate()
        lengths.deallocate()
        wireLengths.deallocate()
        stamps.deallocate()
    }

    /// How many packets wait for the consumer.
    public var depth: Int { published.load(ordering: .acquiring) - consumed.load(ordering: .acquiring) }

    // MARK: Producer side

    /// The next free slot's buffer, or nil when the consumer is a whole ring behind.
    public func reserve() -> UnsafeMutableRawBufferPointer? {
        let next = published.load(ordering: .relaxed)
        guard next - consumed.load(ordering: .acquiring) < slotCount else { return nil }
        return UnsafeMutableRawBufferPointer(start: storage + (next % slotCount) * slotCapacity, count: slotCapacity)
    }

    /// Hands the reserved slot to the consumer: `length` bytes of it, from `start`, hold a
    /// packet that was `wireLength` bytes long on the wire.
    public func publish(start: Int = 0, length: Int, wireLength: Int, timestampNanoseconds: Int64) {
        let next = published.load(ordering: .relaxed)
        let index = next % slotCount
        let first = min(max(0, start), slotCapacity)
        starts[index] = first
        lengths[index] = min(max(0, length), slotCapacity - first)
        wireLengths[index] = wireLength
        stamps[index] = timestampNanoseconds
        published.store(next + 1, ordering: .releasing)
        filled.ring()
    }

    // MARK: Consumer side

    /// Calls `body` with each waiting packet in order (at most `limit`), freeing each slot after.
    /// Returns how many it handed over.
    @discardableResult
    public func drain(limit: Int, _ body: (UnsafeRawBufferPointer, _ wireLength: Int, _ timestampNanoseconds: Int64) -> Void) -> Int {
        var next = consumed.load(ordering: .relaxed)
        let end = min(published.load(ordering: .acquiring), next + limit)
        let count = end - next
        var freedSinceRing = 0
        while next < end {
            let index = next % slotCount
            body(UnsafeRawBufferPointer(start: storage + index * slotCapacity + starts[index], count: lengths[index]),
                 wireLengths[index], stamps[index])
            next += 1
            consumed.store(next, ordering: .releasing)
            freedSinceRing += 1
            if freedSinceRing >= freedPerRing, freed.hasSleeper {
                freed.ring()
                freedSinceRing = 0
            }
        }
        if count > 0 { freed.ring() }
        return count
    }
}
