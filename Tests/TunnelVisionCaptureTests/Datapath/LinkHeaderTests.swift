import Testing
@testable import TunnelVisionCapture

@Suite struct LinkHeaderTests {
    private static let addresses = [UInt8](repeating: 0xAA, count: 12)

    @Test(arguments: [
        ("Ethernet, IPv4", Int32(1), addresses + [0x08, 0x00, 0x45], Optional(14)),
        ("Ethernet, IPv6", 1, addresses + [0x86, 0xDD, 0x60], 14),
        ("Ethernet, one VLAN tag", 1, addresses + [0x81, 0x00, 0x00, 0x07, 0x08, 0x00, 0x45], 18),
        ("Ethernet, two VLAN tags", 1, addresses + [0x88, 0xA8, 0, 1, 0x81, 0x00, 0, 2, 0x86, 0xDD, 0x60], 22),
        ("Ethernet, three tags is not read", 1, addresses + [0x81, 0, 0, 1, 0x81, 0, 0, 2, 0x81, 0, 0, 3, 0x08, 0x00], nil),
        ("Ethernet, ARP", 1, addresses + [0x08, 0x06, 0], nil),
        ("Ethernet, cut before the type", 1, addresses + [0x08], nil),
        ("Linux cooked, IPv4", 113, [UInt8](repeating: 0, count: 14) + [0x08, 0x00, 0x45], 16),
        ("Linux cooked, not IP", 113, [UInt8](repeating: 0, count: 14) + [0x88, 0xCC], nil),
        ("Linux cooked v2, IPv6", 276, [0x86, 0xDD] + [UInt8](repeating: 0, count: 18) + [0x60], 20),
        ("raw IP", 101, [0x45, 0, 0, 20], 0),
        ("DLT_RAW on Linux", 12, [0x60], 0),
        ("unknown link type", 127, [0x45], nil),
    ])
    func cutsTheLinkHeaderOfIPFrames(name: String, linkType: Int32, frame: [UInt8], expected: Int?) {
        let length = frame.withUnsafeBytes { LinkHeader.length(of: $0, linkType: linkType) }
        #expect(length == expected, "\(name)")
    }
}
