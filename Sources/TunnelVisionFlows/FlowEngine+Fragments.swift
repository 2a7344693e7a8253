import TunnelVisionModel
import TunnelVisionWire

extension FlowEngine {
    /// Each fragment counts for its flow where it arrives; the datagram is read once it is whole,
    /// as the receiving kernel would hand it over (a DNS answer or a QUIC Initial larger than the
    /// path), and never from one fragment's bytes: a datagram that never completes reached no one.
    mutating func reassembleUDP(_ fragment: IPPacket, at now: Int64) {
        guard case .reassembled(let bytes) = datagrams.insert(fragment, at: now) else { return }
        bytes.withUnsafeBytes { raw in
            // The flow is the first fragment's, which carried the ports.
            guard let whole = IPPacket(raw), let packet = DecodedPacket(ip: whole), packet.transport == .udp,
                  let slot = table.slot(for: FlowKey(proto: .udp, packet.source, packet.destination)) else { return }
            let direction = table[slot].direction(from: packet.source)
            readUDP(packet.payload, source: packet.source, direction: direction, slot: slot, at: now)
        }
    }

    /// What the IP reassembly did: datagrams made whole, fragments refused, datagrams timed out.
    public var fragmentStatistics: IPFragmentReassembler.Statistics { datagrams.statistics }
}
