/// The two queues from an input thread to the recorder: whole packets, and — when that one is
/// full — just the first bytes of each packet, enough for a row that says it was not captured.
public struct RecorderQueues: Sendable {
    public let packets: PacketRing
    public let headers: PacketRing

    public static let headerBytes = 128

    /// Rung when either queue receives a packet: the recorder sleeps on it while both are empty.
    public var filled: Doorbell { packets.filled }

    /// `filled` may be rung by others with news for the recorder too (the relay's inbox).
    public init(packetSlots: Int, packetCapacity: Int, filled: Doorbell = Doorbell()) {
        packets = PacketRing(slotCount: packetSlots, slotCapacity: packetCapacity, filled: filled)
        headers = PacketRing(slotCount: max(64, packetSlots * 4), slotCapacity: Self.headerBytes, filled: filled)
    }

    /// Whether a packet or a header waits for the recorder.
    public var hasWaitingPackets: Bool { packets.depth > 0 || headers.depth > 0 }

    /// Copies a packet into the first queue with room, counting what found the recorder behind.
    func offer(_ packet: UnsafeRawBufferPointer, wireLength: Int, timestampNanoseconds: Int64, counters: DatapathCounters) {
        if let slot = packets.reserve() {
            copy(packet, into: slot, of: packets, wireLength: wireLength, timestampNanoseconds: timestampNanoseconds)
            return
        }
        offerHeaders(packet, wireLength: wireLength, timestampNanoseconds: timestampNanoseconds, counters: counters)
    }

    /// For a packet that found the packet queue full.
    func offerHeaders(_ packet: UnsafeRawBufferPointer, wireLength: Int, timestampNanoseconds: Int64, counters: DatapathCounters) {
        counters.queueFull.add(1, ordering: .relaxed)
        guard let slot = headers.reserve() else {
            counters.unrecorded.add(1, ordering: .relaxed)
            return
        }
        copy(packet, into: slot, of: headers, wireLength: wireLength, timestampNanoseconds: timestampNanoseconds)
    }

    private func copy(_ packet: UnsafeRawBufferPointer, into slot: UnsafeMutableRawBufferPointer, of ring: PacketRing,
                      wireLength: Int, timestampNanoseconds: Int64) {
        let length = min(packet.count, slot.count)
        if let target = slot.baseAddress, let source = packet.baseAddress { target.copyMemory(from: source, byteCount: length) }
        ring.publish(length: length, wireLength: wireLength, timestampNanoseconds: timestampNanoseconds)
    }
}
