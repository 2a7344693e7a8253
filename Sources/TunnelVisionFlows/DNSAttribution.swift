import TunnelVisionModel
import TunnelVisionWire

/// Which names DNS recently gave each address, per phone: the map a new flow's remote address is
/// looked up in, among the answers that flow's own client received, so that one phone's lookups
/// never name another phone's flows. A pair lives for the shortest TTL on its answer's path, clamped to 60 s … 1 day; at most
/// four names per address and client, and 2048 pairs in all, are kept.
struct DNSAttribution {
    static let minimumLifeNanoseconds: Int64 = 60 * 1_000_000_000
    static let maximumLifeNanoseconds: Int64 = 24 * 60 * 60 * 1_000_000_000
    static let maximumNamesPerAddress = 4
    static let maximumPairs = 2048

    struct Pair {
        let name: String
        var answeredAt: Int64
        var expiresAt: Int64
    }

    /// An answered address as one client (the phone's address on the flow) learnt it.
    struct Key: Hashable {
        let client: IPAddress
        let address: IPAddress
    }

    private var namesByAddress: [Key: [Pair]] = [:]
    private var pairCount = 0

    /// The query name as stored: case-folded, and only if it is a valid exact domain name.
    static func storableName(_ queryName: String) -> String? {
        guard let pattern = try? DomainPattern(parsing: queryName), pattern.scope == .exact else { return nil }
        return pattern.name
    }

    mutating func record(name: String, address: IPAddress, answeredTo client: IPAddress, ttl: UInt32, at now: Int64) {
        let life = min(max(Int64(ttl) * 1_000_000_000, Self.minimumLifeNanoseconds), Self.maximumLifeNanoseconds)
        let address = Key(client: client, address: address)
        var pairs = namesByAddress[address] ?? []
        let before = pairs.count
        pairs.removeAll { $0.expiresAt <= now }
        if let index = pairs.firstIndex(where: { $0.name == name }) {
            pairs[index].answeredAt = max(pairs[index].answeredAt, now)
            pairs[index].expiresAt = max(pairs[index].expiresAt, now + life)
        } else {
            if pairs.count >= Self.maximumNamesPerAddress, let oldest = Self.oldestIndex(in: pairs) {
                pairs.remove(at: oldest)
            }
            pairs.append(Pair(name: name, answeredAt: now, expiresAt: now + life))
        }
        pairCount += pairs.count - before
        namesByAddress[address] = pairs
        if pairCount > Self.maximumPairs { shed(at: now) }
    }

    /// The latest live name the client was given for the address (ties: the smaller string) and
    /// the other live ones, newest first.
    func resolvedName(for address: IPAddress, askedBy client: IPAddress, at now: Int64) -> ResolvedName? {
        guard let pairs = namesByAddress[Key(client: client, address: address)] else { return nil }
        let live = pairs.filter { $0.expiresAt > now }.sorted { lhs, rhs in
            lhs.answeredAt != rhs.answeredAt ? lhs.answeredAt > rhs.answeredAt : lhs.name < rhs.name
        }
        guard let winner = live.first else { return nil }
        return ResolvedName(name: winner.name, otherNames: live.dropFirst().map(\.name))
    }

    private static func oldestIndex(in pairs: [Pair]) -> Int? {
        pairs.indices.min { pairs[$0].answeredAt < pairs[$1].answeredAt }
    }

    /// Drops expired pairs, then the oldest answers, until the bound holds again.
    private mutating func shed(at now: Int64) {
        for (address, pairs) in namesByAddress {
            let live = pairs.filter { $0.expiresAt > now }
            pairCount -= pairs.count - live.count
            namesByAddress[address] = live.isEmpty ? nil : live
        }
        while pairCount > Self.maximumPairs,
              let (address, pairs) = namesByAddress.min(by: { lhs, rhs in
                  (lhs.value.map(\.answeredAt).min() ?? .max) < (rhs.value.map(\.answeredAt).min() ?? .max)
              }),
              let oldest = Self.oldestIndex(in: pairs) {
            var remaining = pairs
            remaining.remove(at: oldest)
            namesByAddress[address] = remaining.isEmpty ? nil : remaining
            pairCount -= 1
        }
    }
}
