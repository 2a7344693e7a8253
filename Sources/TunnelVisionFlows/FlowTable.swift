import TunnelVisionModel

/// The live flows: found by key in O(1), kept in two least-recently-seen lists (TCP, and every
/// datagram protocol, whose idle timeouts differ) so that the oldest of each is at hand in O(1).
/// Storage is dense; removing a flow moves the last one into its place. The flows changed since
/// the last batch are listed, so that a batch costs what changed, not what is live.
struct FlowTable {
    private(set) var flows: [LiveFlow] = []
    private var index = FlowIndex()
    private var heads = [-1, -1]
    private var tails = [-1, -1]
    /// Slots of the changed flows, in the order they changed; each names its place here.
    private var dirtySlots: [Int32] = []

    /// Reserved whole up front (to a sane ceiling), so that growth never doubles the storage.
    init(capacity: Int) {
        flows.reserveCapacity(min(capacity, 1 << 20))
    }

    var count: Int { flows.count }

    func slot(for key: FlowKey) -> Int? { slot(for: key, hash: FlowIndex.hash(key)) }

    /// With the key's hash (`FlowIndex.hash`) at hand: a miss hands it on to `insert`.
    func slot(for key: FlowKey, hash: UInt32) -> Int? { index.slot(for: key, hash: hash, in: flows) }

    /// The least recently seen flow of the TCP list (0) or the datagram list (1).
    func oldestSlot(inList list: Int) -> Int? {
        tails[list] >= 0 ? tails[list] : nil
    }

    static let lists = 0...1

    /// Read in place: a copy of a flow would retain every string and array it holds.
    subscript(slot: Int) -> LiveFlow {
        _read { yield flows[slot] }
        _modify { yield &flows[slot] }
    }

    /// A new flow is a changed one: the next batch inserts it. `hash` is its key's.
    mutating func insert(_ flow: LiveFlow, hash: UInt32) -> Int {
        let slot = flows.count
        flows.append(flow)
        flows[slot].keyHash = hash
        index.insert(slot: slot, in: flows)
        linkAtHead(slot)
        markDirty(slot)
        return slot
    }

    /// The next batch carries this flow.
    mutating func markDirty(_ slot: Int) {
        guard flows[slot].dirtyIndex < 0 else { return }
        flows[slot].dirtyIndex = Int32(dirtySlots.count)
        dirtySlots.append(Int32(slot))
    }

    /// The changed flows' slots in ascending order (the order a scan of the whole table met them
    /// in, which decides the rows new flows get), each marked unchanged.
    mutating func takeDirtySlots() -> [Int] {
        let slots = dirtySlots.map(Int.init).sorted()
        for slot in slots { flows[slot].dirtyIndex = -1 }
        dirtySlots.removeAll(keepingCapacity: true)
        return slots
    }

    /// Marks the flow as just seen.
    mutating func touch(_ slot: Int) {
        guard heads[Self.list(of: flows[slot])] != slot else { return }
        unlink(slot)
        linkAtHead(slot)
    }

    /// The flow taken out keeps its changed mark, for its owner to write it.
    mutating func remove(_ slot: Int) -> LiveFlow {
        unlink(slot)
        let dirtyIndex = Int(flows[slot].dirtyIndex)
        if dirtyIndex >= 0 {
            let lastDirty = dirtySlots.removeLast()
            if dirtyIndex < dirtySlots.count {
                dirtySlots[dirtyIndex] = lastDirty
                flows[Int(lastDirty)].dirtyIndex = Int32(dirtyIndex)
            }
        }
        index.remove(slot: slot, in: flows)
        let last = flows.count - 1
        if slot != last {
            index.move(hash: flows[last].keyHash, from: last, to: slot)
            flows.swapAt(slot, last)
        }
        let removed = flows.removeLast()
        if slot != last {
            let list = Self.list(of: flows[slot])
            let previous = flows[slot].previous, next = flows[slot].next
            if previous >= 0 { flows[previous].next = slot } else { heads[list] = slot }
            if next >= 0 { flows[next].previous = slot } else { tails[list] = slot }
            if flows[slot].dirtyIndex >= 0 { dirtySlots[Int(flows[slot].dirtyIndex)] = Int32(slot) }
        }
        return removed
    }

    private static func list(of flow: LiveFlow) -> Int { flow.state.key.proto == .tcp ? 0 : 1 }

    private mutating func linkAtHead(_ slot: Int) {
        let list = Self.list(of: flows[slot])
        flows[slot].previous = -1
        flows[slot].next = heads[list]
        if heads[list] >= 0 { flows[heads[list]].previous = slot } else { tails[list] = slot }
        heads[list] = slot
    }

    private mutating func unlink(_ slot: Int) {
        let list = Self.list(of: flows[slot])
        let previous = flows[slot].previous, next = flows[slot].next
        if previous >= 0 { flows[previous].next = next } else { heads[list] = next }
        if next >= 0 { flows[next].previous = previous } else { tails[list] = previous }
        flows[slot].previous = -1
        flows[slot].next = -1
    }
}

/// A flow key as five words, what `FlowIndex.hash` feeds the hasher: the model's key has padding
/// that must not be hashed.
struct PackedKey {
    let highA: UInt64, lowA: UInt64, highB: UInt64, lowB: UInt64
    /// Protocol, both families and both ports.
    let rest: UInt64

    init(_ key: FlowKey) {
        highA = key.endpointA.address.high
        lowA = key.endpointA.address.low
        highB = key.endpointB.address.high
        lowB = key.endpointB.address.low
        rest = UInt64(key.proto.rawValue) << 48
            | UInt64(key.endpointA.address.family.rawValue) << 44 | UInt64(key.endpointB.address.family.rawValue) << 40
            | UInt64(key.endpointA.port) << 16 | UInt64(key.endpointB.port)
    }
}
