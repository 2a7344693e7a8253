import TunnelVisionWire

/// IP/TCP/UDP: the first byte picks the link type, the rest is the frame; read again as a TUN
/// read with offload (a virtio-net header, then a super-packet to cut into segments).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPacket(_ start: UnsafeRawPointer?, _ count: Int) -> Int32 {
    guard let start, count > 0 else { return 0 }
    let input = UnsafeRawBufferPointer(start: start, count: count)
    let linkTypes: [LinkType] = [.raw, .ethernet, .linuxCooked, .linuxCookedV2, .bsdLoopback, .ipv4, .ipv6,
                                 .ppp, .pppHDLC, .ciscoHDLC, .openBSDLoopback, .pppWithDirection, .ciscoHDLCWithDirection, .nflog]
    let linkType = linkTypes[Int(input[0]) % linkTypes.count]
    let frame = UnsafeRawBufferPointer(rebasing: input[1...])
    if let packet = DecodedPacket(frame: frame, linkType: linkType) {
        _ = packet.payload.count
        _ = QUICLongHeader(packet.payload)
    }
    guard count > OffloadedPacket.virtioHeaderLength else { return 0 }
    let header = UnsafeRawBufferPointer(rebasing: input[0..<OffloadedPacket.virtioHeaderLength])
    let superPacket = UnsafeRawBufferPointer(rebasing: input[OffloadedPacket.virtioHeaderLength...])
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: superPacket.count, alignment: 8)
    defer { scratch.deallocate() }
    OffloadedPacket.forEachSegment(virtioHeader: header, packet: superPacket, scratch: scratch) { segment in
        precondition(segment.count <= superPacket.count)
        _ = DecodedPacket(frame: segment, linkType: .raw)
    }
    return 0
}
