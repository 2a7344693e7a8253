/// The live flows in one contiguous block, addressed by slot. A flow is read and changed where it
/// lies: an `Array` element handed to a method is copied first, and a copy of a live flow retains
/// every string, array and reading it holds, once per packet. A removal moves the last flow into
/// the gap, and nothing it holds is retained or released on the way.
///
/// A reference type under `FlowTable`'s value semantics: the table copies it before changing a
/// store another copy of the table shares.
final class FlowStore {
    private(set) var base: UnsafeMutablePointer<LiveFlow>
    private(set) var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    func copy() -> FlowStore {
        let copy = FlowStore(capacity: capacity)
        copy.base.initialize(from: base, count: count)
        copy.count = count
        for slot in 0..<count {
            if let reading = copy.base[slot].reading { copy.base[slot].reading = reading.copied() }
        }
        return copy
    }

    func append(_ flow: LiveFlow) {
        if count == capacity { grow() }
        (base + count).initialize(to: flow)
        count += 1
    }

    /// Moves the flow at `slot` out and the last flow into its place.
    func removeMovingLast(into slot: Int) -> LiveFlow {
        precondition(slot >= 0 && slot < count, "slot \(slot) outside the store")
        let removed = (base + slot).move()
        count -= 1
        if slot != count { (base + slot).moveInitialize(from: base + count, count: 1) }
        return removed
    }

    private func grow() {
        let larger = UnsafeMutablePointer<LiveFlow>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }
}
