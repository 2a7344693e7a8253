import TunnelVisionModel

/// Why the relay will not dial a destination the phone named. The relay's connections leave from
/// the gateway's own addresses: dialling the gateway itself (or an address only the gateway's
/// own stack answers) would hand the phone the gateway's services under the gateway's name.
public enum DestinationRefusal: String, Sendable, Hashable, CaseIterable {
    /// 127.0.0.0/8, ::1.
    case loopback
    /// 0.0.0.0/8, ::.
    case unspecified
    /// ::ffff:0:0/96: an IPv4 address dressed as IPv6, which the stack would dial as IPv4.
    case v4Mapped
    /// 169.254.0.0/16, fe80::/10.
    case linkLocal
    /// 224.0.0.0/4, 255.255.255.255, ff00::/8.
    case multicast
    /// An address of one of the gateway's own interfaces.
    case gatewayAddress
}

/// The pure rule: which destinations the relay refuses before it dials.
public enum DestinationPolicy {
    /// Nil when the relay may dial `address`; `local` holds the gateway's own addresses.
    public static func refusal(for address: IPAddress, local: Set<IPAddress>) -> DestinationRefusal? {
        switch address.family {
        case .v4:
            let value = UInt32(truncatingIfNeeded: address.low)
            if value >> 24 == 127 { return .loopback }
            if value >> 24 == 0 { return .unspecified }
            if value >> 16 == 0xA9FE { return .linkLocal }
            if value >> 28 == 0xE || value == .max { return .multicast }
        case .v6:
            if address.high == 0, address.low == 1 { return .loopback }
            if address.high == 0, address.low == 0 { return .unspecified }
            if address.high == 0, address.low >> 32 == 0xFFFF { return .v4Mapped }
            if address.high >> 54 == 0x3FA { return .linkLocal }
            if address.high >> 56 == 0xFF { return .multicast }
        }
        return local.contains(address) ? .gatewayAddress : nil
    }
}
