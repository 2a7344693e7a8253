import Foundation

/// A test phone the gateway knows: its WireGuard peer, and the two tunnel addresses its traffic
/// comes from. The addresses are what tagging and DNS attribution key on; the name is what a
/// technician types.
public struct Phone: Sendable, Hashable {
    public let name: String
    public let ipv4: IPAddress
    public let ipv6: IPAddress
    /// The peer's WireGuard public key, base64 as `wg` prints it.
    public let publicKey: String
    /// SHA-256 of the 32 key bytes, lower-case hex: what a report names the peer by.
    public let keyFingerprint: String

    public init(name: String, ipv4: IPAddress, ipv6: IPAddress, publicKey: String, keyFingerprint: String) {
        self.name = name
        self.ipv4 = ipv4
        self.ipv6 = ipv6
        self.publicKey = publicKey
        self.keyFingerprint = keyFingerprint
    }

    public var addresses: [IPAddress] { [ipv4, ipv6] }
}

/// A phone as the history holds it.
public struct RegisteredPhone: Sendable, Hashable {
    public let phone: Phone
    public let addedAt: Date

    public init(phone: Phone, addedAt: Date) {
        self.phone = phone
        self.addedAt = addedAt
    }
}
