import TunnelVisionModel

/// The live flows: found by key in O(1), kept in two least-recently-seen lists (TCP, and every
/// datagram protocol, whose idle timeouts differ) so that the oldest of each is at hand in O(1).
/// Storage is dense; removing a flow moves the last one into its place. The flows changed since
/// the last batch are listed, so that a batch costs what changed, not what is live.
struct FlowTable {
    private var store: FlowStore
    private var index = FlowIndex()
    private var heads: (Int32, Int32) = (-1, -1)
    private var tails: (Int32, Int32) = (-1, -1)
    /// Slots of the changed flows, in the order they changed; each names its place here.
    private var dirtySlots: [Int32] = []

    /// Reserved whole up front (to a sane ceiling), so that growth never doubles the storage.
    init(capacity: Int) {
        store = FlowStore(capacity: min(capacity, 1 << 20))
    }

    var count: Int { store.count }

    func slot(for key: FlowKey) -> Int? { slot(for: key, hash: FlowIndex.hash(key)) }

    /// With the key's hash (`FlowIndex.hash`) at hand: a miss hands it on to `insert`.
    func slot(for key: FlowKey, hash: UInt32) -> Int? { index.slot(for: key, hash: hash, in: store.base) }

    /// The least recently seen flow of the TCP list (0) or the datagram list (1).
    func oldestSlot(inList list: Int) -> Int? {
        let tail = list == 0 ? tails.0 : tails.1
        return tail >= 0 ? Int(tail) : nil
    }

    static let lists = 0...1

    /// Read and changed in place: a copy of a flow would retain every string and array it holds.
    subscript(slot: Int) -> LiveFlow {
        unsafeAddress {
            precondition(slot >= 0 && slot < store.count, "slot \(slot) outside the table")
            return UnsafePointer(store.base + slot)
        }
        unsafeMutableAddress {
            precondition(slot >= 0 && slot < store.count, "slot \(slot) outside the table")
            makeUnique()
            return store.base + slot
        }
    }

    /// The flow's parse state, to be changed in place: the table is made its own first, so that
    /// a reading a copy of the table shares is never changed.
    mutating func readingToChange(_ slot: Int) -> FlowReading? {
        makeUnique()
        return self[slot].reading
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&store) { store = store.copy() }
    }

    /// A new flow is a changed one: the next batch inserts it. `hash` is its key's.
    mutating func insert(_ flow: LiveFlow, hash: UInt32) -> Int {
        makeUnique()
        let slot = store.count
        store.append(flow)
        self[slot].keyHash = hash
        index.insert(slot: slot, in: store.base)
        linkAtHead(slot)
        markDirty(slot)
        return slot
    }

    /// The next batch carries this flow.
    mutating func markDirty(_ slot: Int) {
        guard self[slot].dirtyIndex < 0 else { return }
        self[slot].dirtyIndex = Int32(dirtySlots.count)
        dirtySlots.append(Int32(slot))
    }

    /// The changed flows' slots in ascending order (the order a scan of the whole table met them
    /// in, which decides the rows new flows get), each marked unchanged.
    mutating func takeDirtySlots() -> [Int] {
        let slots = dirtySlots.map(Int.init).sorted()
        for slot in slots { self[slot].dirtyIndex = -1 }
        dirtySlots.removeAll(keepingCapacity: true)
        return slots
    }

    /// Marks the flow as just seen.
    mutating func touch(_ slot: Int) {
        guard head(ofList: list(ofSlot: slot)) != slot else { return }
        unlink(slot)
        linkAtHead(slot)
    }

    /// The flow taken out keeps its changed mark, for its owner to write it.
    mutating func remove(_ slot: Int) -> LiveFlow {
        makeUnique()
        unlink(slot)
        let dirtyIndex = Int(self[slot].dirtyIndex)
        if dirtyIndex >= 0 {
            let lastDirty = dirtySlots.removeLast()
            if dirtyIndex < dirtySlots.count {
                dirtySlots[dirtyIndex] = lastDirty
                self[Int(lastDirty)].dirtyIndex = Int32(dirtyIndex)
            }
        }
        index.remove(slot: slot, in: store.base)
        let last = store.count - 1
        if slot != last { index.move(hash: self[last].keyHash, from: last, to: slot) }
        let removed = store.removeMovingLast(into: slot)
        if slot != last {
            let list = Self.list(of: self[slot])
            let previous = Int(self[slot].previous), next = Int(self[slot].next)
            if previous >= 0 { self[previous].next = Int32(slot) } else { setHead(ofList: list, slot) }
            if next >= 0 { self[next].previous = Int32(slot) } else { setTail(ofList: list, slot) }
            if self[slot].dirtyIndex >= 0 { dirtySlots[Int(self[slot].dirtyIndex)] = Int32(slot) }
        }
        return removed
    }

    private static func list(of flow: borrowing LiveFlow) -> Int { flow.state.key.proto == .tcp ? 0 : 1 }
    private func list(ofSlot slot: Int) -> Int { Self.list(of: self[slot]) }

    private func head(ofList list: Int) -> Int { Int(list == 0 ? heads.0 : heads.1) }

    private mutating func setHead(ofList list: Int, _ slot: Int) {
        if list == 0 { heads.0 = Int32(slot) } else { heads.1 = Int32(slot) }
    }

    private mutating func setTail(ofList list: Int, _ slot: Int) {
        if list == 0 { tails.0 = Int32(slot) } else { tails.1 = Int32(slot) }
    }

    private mutating func linkAtHead(_ slot: Int) {
        let list = self.list(ofSlot: slot)
        let head = self.head(ofList: list)
        self[slot].previous = -1
        self[slot].next = Int32(head)
        if head >= 0 { self[head].previous = Int32(slot) } else { setTail(ofList: list, slot) }
        setHead(ofList: list, slot)
    }

    private mutating func unlink(_ slot: Int) {
        let list = self.list(ofSlot: slot)
        let previous = Int(self[slot].previous), next = Int(self[slot].next)
        if previous >= 0 { self[previous].next = Int32(next) } else { setHead(ofList: list, next) }
        if next >= 0 { self[next].previous = Int32(previous) } else { setTail(ofList: list, previous) }
        self[slot].previous = -1
        self[slot].next = -1
    }
}
