import TunnelVisionModel
import TunnelVisionWire

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

    /// The packet's endpoints, a later fragment's ports taken from its first fragment.
    mutating func endpoints(of packet: DecodedPacket) -> (source: Endpoint, destination: Endpoint) {
        guard let identifier = packet.ip.fragmentIdentifier else { return (packet.source, packet.destination) }
        let key = Key(source: packet.ip.source, destination: packet.ip.destination, proto: packet.transport, identifier: identifier)
        guard packet.ip.isLaterFragment else {
            remember(key, source: packet.sourcePort, destination: packet.destinationPort)
            return (packet.source, packet.destination)
        }
        guard let (sourcePort, destinationPort) = ports[key] else { return (packet.source, packet.destination) }
        return (Endpoint(address: packet.ip.source, port: sourcePort), Endpoint(address: packet.ip.destination, port: destinationPort))
    }

    private mutating func remember(_ key: Key, source: UInt16, destination: UInt16) {
        // A bounded memory: forgetting everything at once is enough for fragments that travel together.
        if ports.count >= Self.capacity { ports.removeAll(keepingCapacity: true) }
        ports[key] = (source, destination)
    }
}
