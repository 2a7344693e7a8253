/// Keys with values, at most `capacity` of them; the least recently used goes first. Linear
/// recency bookkeeping is avoided with a use counter: eviction scans only when full.
struct BoundedRecency<Key: Hashable, Value> {
    private var entries: [Key: (value: Value, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    var count: Int { entries.count }

    mutating func value(for key: Key) -> Value? {
        guard let entry = entries[key] else { return nil }
        clock &+= 1
        entries[key] = (entry.value, clock)
        return entry.value
    }

    func contains(_ key: Key) -> Bool { entries[key] != nil }

    mutating func insert(_ value: Value, for key: Key) {
        clock &+= 1
        if entries[key] == nil, entries.count >= capacity,
           let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            entries[oldest] = nil
        }
        entries[key] = (value, clock)
    }

    mutating func removeAll() {
        entries.removeAll()
    }
}

/// Hosts whose connections refused our certificate in this run of the daemon (per run,
/// never persisted, so a restart after the CA is regenerated starts with none), at most `capacity`.
public struct RefusalMemory: Sendable {
    private var hosts: BoundedRecency<String, UInt8>

    public init(capacity: Int) {
        hosts = BoundedRecency(capacity: capacity)
    }

    public var count: Int { hosts.count }

    public func isRemembered(_ host: String) -> Bool { hosts.contains(host.lowercased()) }

    public mutating func remember(_ host: String, alert: UInt8) {
        hosts.insert(alert, for: host.lowercased())
    }

    /// A new CA: a refusal of the old one says nothing about the new one.
    public mutating func forgetAll() {
        hosts.removeAll()
    }
}

extension BoundedRecency: Sendable where Key: Sendable, Value: Sendable {}
