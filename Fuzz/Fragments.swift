import TunnelVisionWire

/// IP fragment reassembly: the input is a run of packets, each a two-byte length, a byte of
/// seconds to wait before it, then the IP packet. The reassembler holds to its bounds, and every
/// datagram it hands back is a packet of at most 65,535 bytes of payload that reads again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFragments(_ start: UnsafeRawPointer?, _ count: Int) -> Int32 {
    guard let start, count > 0 else { return 0 }
    let input = UnsafeRawBufferPointer(start: start, count: count)
    var limits = IPFragmentReassembler.Limits()
    limits.memoryBudget = 64 * 1024
    limits.maximumDatagrams = 16
    var reassembler = IPFragmentReassembler(limits: limits)
    var reader = ByteReader(input)
    var now: Int64 = 0
    while let length = reader.u16(), let wait = reader.u8(), let bytes = reader.take(Int(length)) {
        now += Int64(wait) * 1_000_000_000
        guard let packet = IPPacket(bytes), packet.fragmentIdentifier != nil else { continue }
        if case .reassembled(let whole) = reassembler.insert(packet, at: now) {
            precondition(whole.count <= 65_535 + 40)
            whole.withUnsafeBytes { raw in
                precondition(IPPacket(raw)?.fragmentIdentifier == nil)
            }
        }
        precondition(reassembler.memory <= limits.memoryBudget && reassembler.heldDatagrams <= limits.maximumDatagrams)
    }
    return 0
}
