/// An IPv4 or IPv6 address held in two words, so that the per-packet path never allocates.
public struct IPAddress: Sendable, Hashable, Comparable {
    public enum Family: UInt8, Sendable, Hashable, Comparable {
        case v4 = 4
        case v6 = 6
        public static func < (lhs: Family, rhs: Family) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public let family: Family
    /// The first eight bytes of an IPv6 address, big-endian; zero for IPv4.
    public let high: UInt64
    /// The last eight bytes of an IPv6 address, or the IPv4 address in the low 32 bits.
    public let low: UInt64

    public init(v4 value: UInt32) {
        family = .v4
        high = 0
        low = UInt64(value)
    }

    /// An address of either family from its words, as `FlowKey` holds them.
    init(_ family: Family, high: UInt64, low: UInt64) {
        self.family = family
        self.high = high
        self.low = low
    }

    public init(v6High high: UInt64, low: UInt64) {
        family = .v6
        self.high = high
        self.low = low
    }

    /// From 4 or 16 network-order bytes; nil for any other count.
    public init?<Bytes: Collection>(bytes: Bytes) where Bytes.Element == UInt8 {
        var words: [UInt64] = [0, 0]
        switch bytes.count {
        case 4:
            var value: UInt32 = 0
            for byte in bytes { value = value << 8 | UInt32(byte) }
            self.init(v4: value)
        case 16:
            for (index, byte) in bytes.enumerated() {
                words[index / 8] = words[index / 8] << 8 | UInt64(byte)
            }
            self.init(v6High: words[0], low: words[1])
        default:
            return nil
        }
    }

    /// Parses dotted IPv4 or RFC 4291 IPv6 text.
    public init?(_ text: String) {
        if text.contains(":") {
            guard let parsed = Self.parseV6(text) else { return nil }
            self = parsed
        } else {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4 else { return nil }
            var value: UInt32 = 0
            for part in parts {
                guard !part.isEmpty, part.count <= 3, let octet = UInt8(part) else { return nil }
                value = value << 8 | UInt32(octet)
            }
            self.init(v4: value)
        }
    }

    public var bytes: [UInt8] {
        switch family {
        case .v4:
            return (0..<4).map { UInt8(truncatingIfNeeded: low >> (24 - 8 * UInt64($0))) }
        case .v6:
            return (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64($0))) }
                + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64($0))) }
        }
    }

    public static func < (lhs: IPAddress, rhs: IPAddress) -> Bool {
        (lhs.family, lhs.high, lhs.low) < (rhs.family, rhs.high, rhs.low)
    }

    private static func parseV6(_ text: String) -> IPAddress? {
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains("."), let v4 = IPAddress(String(piece)) {
                    result.append(UInt16(truncatingIfNeeded: v4.low >> 16))
                    result.append(UInt16(truncatingIfNeeded: v4.low))
                    continue
                }
                guard !piece.isEmpty, piece.count <= 4, let group = UInt16(piece, radix: 16) else { return nil }
                result.append(group)
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        var all = head
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count < 8 else { return nil }
            all += Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        }
        guard all.count == 8 else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0
        for group in all[0..<4] { high = high << 16 | UInt64(group) }
        for group in all[4..<8] { low = low << 16 | UInt64(group) }
        return IPAddress(v6High: high, low: low)
    }
}

extension IPAddress: CustomStringConvertible {
    /// Dotted quad, or RFC 5952 text (lower case, the longest run of zero groups folded).
    public var description: String {
        switch family {
        case .v4:
            return bytes.map(String.init).joined(separator: ".")
        case .v6:
            let groups = (0..<4).map { UInt16(truncatingIfNeeded: high >> (48 - 16 * UInt64($0))) }
                + (0..<4).map { UInt16(truncatingIfNeeded: low >> (48 - 16 * UInt64($0))) }
            var bestStart = -1, bestLength = 0, runStart = -1
            for index in 0...groups.count {
                if index < groups.count, groups[index] == 0 {
                    if runStart < 0 { runStart = index }
                } else if runStart >= 0 {
                    if index - runStart > bestLength { bestStart = runStart; bestLength = index - runStart }
                    runStart = -1
                }
            }
            let hex = groups.map { String($0, radix: 16) }
            guard bestLength >= 2 else { return hex.joined(separator: ":") }
            let head = hex[..<bestStart].joined(separator: ":")
            let tail = hex[(bestStart + bestLength)...].joined(separator: ":")
            return head + "::" + tail
        }
    }
}

/// An address and a port (zero for protocols without ports).
public struct Endpoint: Sendable, Hashable, Comparable {
    public let address: IPAddress
    public let port: UInt16

    public init(address: IPAddress, port: UInt16) {
        self.address = address
        self.port = port
    }

    public static func < (lhs: Endpoint, rhs: Endpoint) -> Bool {
        (lhs.address, lhs.port) < (rhs.address, rhs.port)
    }
}

extension Endpoint: CustomStringConvertible {
    public var description: String {
        address.family == .v6 ? "[\(address)]:\(port)" : "\(address):\(port)"
    }
}

/// A network in CIDR form, for the configured client networks.
public struct IPNetwork: Sendable, Hashable {
    public let address: IPAddress
    public let prefixLength: Int

    public init?(_ text: String) {
        // Empty parts kept: "" and "10.0.0.0/" are refused, not read as no text or a /32.
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(String(parts[0])) else { return nil }
        let maximum = address.family == .v4 ? 32 : 128
        let length = parts.count == 2 ? Int(parts[1]) : maximum
        guard let length, (0...maximum).contains(length) else { return nil }
        self.address = address
        self.prefixLength = length
    }

    /// A network of a known address; a prefix longer than the family's is cut to its length.
    public init(_ address: IPAddress, prefixLength: Int) {
        self.address = address
        self.prefixLength = max(0, min(prefixLength, address.family == .v4 ? 32 : 128))
    }

    public func contains(_ candidate: IPAddress) -> Bool {
        guard candidate.family == address.family else { return false }
        if address.family == .v4 {
            let mask: UInt64 = prefixLength == 0 ? 0 : (0xFFFF_FFFF << UInt64(32 - prefixLength)) & 0xFFFF_FFFF
            return candidate.low & mask == address.low & mask
        }
        let highBits = min(prefixLength, 64), lowBits = max(prefixLength - 64, 0)
        let highMask: UInt64 = highBits == 0 ? 0 : ~0 << UInt64(64 - highBits)
        let lowMask: UInt64 = lowBits == 0 ? 0 : ~0 << UInt64(64 - lowBits)
        return candidate.high & highMask == address.high & highMask
            && candidate.low & lowMask == address.low & lowMask
    }
}

extension IPNetwork: CustomStringConvertible {
    public var description: String { "\(address)/\(prefixLength)" }
}

/// The text each prints is the text its parser reads: the one written form of the daemon's settings.
extension IPAddress: LosslessStringConvertible {}
extension IPNetwork: LosslessStringConvertible {}
