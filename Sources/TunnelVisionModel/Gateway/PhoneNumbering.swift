/// A phone gets the N-th address of every client network (the gateway is 1): 10.77.0.0/24 gives
/// 10.77.0.N, fd77::/64 gives fd77::N, as scripts/lib/wireguard.sh writes them into WireGuard's
/// files. The history's phones decide which N is free, so that the phones table is the one
/// registry and the key folders on disk only keep what WireGuard needs.
public enum PhoneNumbering {
    /// 1 is the gateway and 255 the IPv4 broadcast of a /24.
    public static let numbers: ClosedRange<Int> = 2...254

    /// The N-th address of a network written with its host part empty (the last IPv4 byte, the
    /// last IPv6 group); nil for any other network, whose N-th address the scripts refuse too.
    public static func address(_ number: Int, in network: IPNetwork) -> IPAddress? {
        guard numbers.contains(number) else { return nil }
        let base = network.address
        switch base.family {
        case .v4:
            guard base.low & 0xFF == 0 else { return nil }
            return IPAddress(v4: UInt32(truncatingIfNeeded: base.low) | UInt32(number))
        case .v6:
            guard base.low & 0xFFFF == 0 else { return nil }
            return IPAddress(v6High: base.high, low: base.low | UInt64(number))
        }
    }

    /// The lowest number whose address in every network no phone holds; nil when each is held.
    /// The networks must each give an address (`address(_:in:)`).
    public static func lowestFree(in networks: [IPNetwork], phones: [Phone]) -> Int? {
        let held = Set(phones.flatMap(\.addresses))
        return numbers.first { number in
            networks.allSatisfy { network in address(number, in: network).map { !held.contains($0) } ?? false }
        }
    }
}
