import TunnelVisionModel

/// The ports a fragmented datagram's first fragment carried, so that its later fragments count
/// for the same flow. Later fragments whose first was not seen (or came after them) have no
/// ports and count for a flow of their own, ports zero.
struct FragmentPorts {
    struct Key: Hashable {
        let source: IPAddress
        let destination: IPAddress
        let proto: TransportProtocol
        let identifier: UInt32
    }

    static let capacity = 256
    private var ports: [Key: (UInt16, UInt16)] = [:]

    mutating func remember(_ key: Key, source: UInt16, destination: UInt16) {
        // A bounded memory: forgetting everything at once is enough for fragments that travel together.
        if ports.count >= Self.capacity { ports.removeAll(keepingCapacity: true) }
        ports[key] = (source, destination)
    }

    func ports(for key: Key) -> (UInt16, UInt16)? { ports[key] }
}
