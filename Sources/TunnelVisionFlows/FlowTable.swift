import TunnelVisionModel

/// The live flows: found by key in O(1), kept in two least-recently-seen lists (TCP, and every
/// datagram protocol, whose idle timeouts differ) so that the oldest of each is at hand in O(1).
/// Storage is dense; removing a flow moves the last one into its place.
struct FlowTable {
    private(set) var flows: [LiveFlow] = []
    private var slotByKey: [PackedKey: Int32] = [:]
    private var heads = [-1, -1]
    private var tails = [-1, -1]

    /// Reserved whole up front (to a sane ceiling), so that growth never doubles the storage.
    init(capacity: Int) {
        flows.reserveCapacity(min(capacity, 1 << 20))
        slotByKey.reserveCapacity(min(capacity, 1 << 20))
    }

    var count: Int { flows.count }

    func slot(for key: FlowKey) -> Int? { slotByKey[PackedKey(key)].map(Int.init) }

    /// The least recently seen flow of the TCP list (0) or the datagram list (1).
    func oldestSlot(inList list: Int) -> Int? {
        tails[list] >= 0 ? tails[list] : nil
    }

    static let lists = 0...1

    subscript(slot: Int) -> LiveFlow {
        get { flows[slot] }
        _modify { yield &flows[slot] }
    }

    mutating func insert(_ flow: LiveFlow) -> Int {
        let slot = flows.count
        flows.append(flow)
        slotByKey[PackedKey(flow.state.key)] = Int32(slot)
        linkAtHead(slot)
        return slot
    }

    /// Marks the flow as just seen.
    mutating func touch(_ slot: Int) {
        guard heads[Self.list(of: flows[slot])] != slot else { return }
        unlink(slot)
        linkAtHead(slot)
    }

    mutating func remove(_ slot: Int) -> LiveFlow {
        unlink(slot)
        let removed = flows[slot]
        slotByKey[PackedKey(removed.state.key)] = nil
        let last = flows.count - 1
        if slot != last {
            let moved = flows[last]
            flows[slot] = moved
            slotByKey[PackedKey(moved.state.key)] = Int32(slot)
            let list = Self.list(of: moved)
            if moved.previous >= 0 { flows[moved.previous].next = slot } else { heads[list] = slot }
            if moved.next >= 0 { flows[moved.next].previous = slot } else { tails[list] = slot }
        }
        flows.removeLast()
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

/// A flow key in 40 bytes instead of 72: the index holds one per live flow, and at a hundred
/// thousand flows the padding of the model's key is megabytes.
struct PackedKey: Hashable {
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
