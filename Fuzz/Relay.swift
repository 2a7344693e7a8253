import TunnelVisionRelay
import TunnelVisionWire

/// The relay's reading of the phone's first bytes: the hold (fed in segments, the first byte
/// says where to cut), the decision over it, and the version range the relay would mirror.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRelay(_ start: UnsafeRawPointer?, _ count: Int) -> Int32 {
    guard let start, count > 0 else { return 0 }
    let input = UnsafeRawBufferPointer(start: start, count: count)
    let cut = min(Int(input[0]) * 4, count)
    // A small limit reaches the full hold; the real one reaches every settled state.
    for limit in [512, 64 * 1024] {
        var hold = ClientHelloHold(limit: limit)
        hold.append(UnsafeRawBufferPointer(rebasing: input[0..<cut]))
        hold.append(UnsafeRawBufferPointer(rebasing: input[cut...]))
        precondition(hold.bytes.count <= limit)
        let policy = InspectionPolicy(isEnabled: true, inspectedPorts: [443], hasCertificateAuthority: true)
        let decision = policy.decision(destinationPort: 443, hold: hold.state, heldBytes: hold.bytes, isRemembered: { $0.hasPrefix("r") })
        if case .terminate(let name)? = decision { precondition(!name.isEmpty && name.utf8.count <= 253) }
        if case .settled(let reading?) = hold.state { _ = RelayVersionRange(offer: reading.offer) }
    }
    return 0
}
