import TunnelVisionModel

/// The live flows' slots by 5-tuple: open addressing over a power-of-two array of slot numbers,
/// four bytes a bucket where a dictionary of packed keys took some forty-four at a quarter of its
/// load. A key is hashed once per look-up (keyed SipHash: `Hasher`, so that a hostile capture
/// cannot aim its flows at one bucket) and an insertion after a miss reuses that hash.
struct FlowIndex {
    /// A slot number plus one; 0 is an empty bucket.
    private var buckets: [Int32]
    private var mask: Int
    private(set) var count = 0

    init() {
        buckets = [Int32](repeating: 0, count: 1024)
        mask = 1023
    }

    /// Kept with each flow (`LiveFlow.keyHash`), so that moving or removing one never hashes again.
    static func hash(_ key: FlowKey) -> UInt32 {
        var hasher = Hasher()
        let words = key.words
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
        hasher.combine(words.4)
        return UInt32(truncatingIfNeeded: hasher.finalize())
    }

    /// The slot of the flow with this key, given its `hash`.
    func slot(for key: FlowKey, hash: UInt32, in flows: UnsafePointer<LiveFlow>) -> Int? {
        var bucket = Int(hash) & mask
        while buckets[bucket] != 0 {
            let slot = Int(buckets[bucket]) - 1
            if flows[slot].state.key == key { return slot }
            bucket = (bucket + 1) & mask
        }
        return nil
    }

    /// Adds a key known to be absent; doubles the buckets past half full, so probes stay short.
    mutating func insert(slot: Int, in flows: UnsafePointer<LiveFlow>) {
        if (count + 1) * 2 > buckets.count { grow(flows) }
        var bucket = Int(flows[slot].keyHash) & mask
        while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
        buckets[bucket] = Int32(slot + 1)
        count += 1
    }

    /// Points the key's bucket at the flow's new slot (the table moved it).
    mutating func move(hash: UInt32, from old: Int, to new: Int) {
        buckets[bucket(of: old, hash: hash)] = Int32(new + 1)
    }

    /// Takes the flow at `slot` out, shifting later members of its run back into the gap so that
    /// no probe stops short of them (no tombstones to sweep).
    mutating func remove(slot: Int, in flows: UnsafePointer<LiveFlow>) {
        var gap = bucket(of: slot, hash: flows[slot].keyHash)
        buckets[gap] = 0
        count -= 1
        var probe = (gap + 1) & mask
        while buckets[probe] != 0 {
            let home = Int(flows[Int(buckets[probe]) - 1].keyHash) & mask
            // The member may fill the gap unless its home lies cyclically in (gap, probe].
            let distanceFromHome = (probe - home) & mask, distanceFromGap = (probe - gap) & mask
            if distanceFromHome >= distanceFromGap {
                buckets[gap] = buckets[probe]
                buckets[probe] = 0
                gap = probe
            }
            probe = (probe + 1) & mask
        }
    }

    private func bucket(of slot: Int, hash: UInt32) -> Int {
        var bucket = Int(hash) & mask
        while buckets[bucket] != Int32(slot + 1) { bucket = (bucket + 1) & mask }
        return bucket
    }

    private mutating func grow(_ flows: UnsafePointer<LiveFlow>) {
        let old = buckets
        buckets = [Int32](repeating: 0, count: old.count * 2)
        mask = buckets.count - 1
        for entry in old where entry != 0 {
            var bucket = Int(flows[Int(entry) - 1].keyHash) & mask
            while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
            buckets[bucket] = entry
        }
    }
}
