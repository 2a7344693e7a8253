import TunnelVisionWire

/// IP/TCP/UDP: the first byte picks the link type, the rest is the frame.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPacket(_ start: UnsafeRawPointer?, _ count: Int) -> Int32 {
    guard let start, count > 0 else { return 0 }
    let input = UnsafeRawBufferPointer(start: start, count: count)
    let linkTypes: [LinkType] = [.raw, .ethernet, .linuxCooked, .linuxCookedV2, .bsdLoopback, .ipv4, .ipv6]
    let linkType = linkTypes[Int(input[0]) % linkTypes.count]
    let frame = UnsafeRawBufferPointer(rebasing: input[1...])
    if let packet = DecodedPacket(frame: frame, linkType: linkType) {
        _ = packet.payload.count
        _ = QUICLongHeader(packet.payload)
    }
    return 0
}
