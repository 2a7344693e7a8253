import Testing
@testable import TunnelVisionCapture

struct LinkCase: Sendable, CustomTestStringConvertible {
    let name: String
    let linkType: Int32
    let frame: [UInt8]
    let ipStartsAt: Int?
    var testDescription: String { name }

    init(_ name: String, _ linkType: Int32, _ frame: [UInt8], _ ipStartsAt: Int?) {
        self.name = name
        self.linkType = linkType
        self.frame = frame
        self.ipStartsAt = ipStartsAt
    }
}

private let macs = [UInt8](repeating: 0xAA, count: 12)
private let cooked = [UInt8](repeating: 0, count: 14)

@Suite struct LinkHeaderTests {
    static let cases: [LinkCase] = [
        LinkCase("Ethernet, IPv4", 1, macs + [0x08, 0x00, 0x45], 14),
        LinkCase("Ethernet, IPv6", 1, macs + [0x86, 0xDD, 0x60], 14),
        LinkCase("Ethernet, one VLAN tag", 1, macs + [0x81, 0x00, 0x00, 0x07, 0x08, 0x00, 0x45], 18),
        LinkCase("Ethernet, two VLAN tags", 1, macs + [0x88, 0xA8, 0, 1, 0x81, 0x00, 0, 2, 0x86, 0xDD, 0x60], 22),
        LinkCase("Ethernet, three tags is not read", 1, macs + [0x81, 0, 0, 1, 0x81, 0, 0, 2, 0x81, 0, 0, 3, 0x08, 0x00], nil),
        LinkCase("Ethernet, ARP", 1, macs + [0x08, 0x06, 0], nil),
        LinkCase("Ethernet, cut before the type", 1, macs + [0x08], nil),
        LinkCase("Linux cooked, IPv4", 113, cooked + [0x08, 0x00, 0x45], 16),
        LinkCase("Linux cooked, not IP", 113, cooked + [0x88, 0xCC], nil),
        LinkCase("Linux cooked v2, IPv6", 276, [0x86, 0xDD] + [UInt8](repeating: 0, count: 18) + [0x60], 20),
        LinkCase("raw IP", 101, [0x45, 0, 0, 20], 0),
        LinkCase("DLT_RAW on Linux", 12, [0x60], 0),
        LinkCase("unknown link type", 127, [0x45], nil),
    ]

    @Test(arguments: cases)
    func cutsTheLinkHeaderOfIPFrames(_ link: LinkCase) {
        let length = link.frame.withUnsafeBytes { LinkHeader.length(of: $0, linkType: link.linkType) }
        #expect(length == link.ipStartsAt)
    }
}
