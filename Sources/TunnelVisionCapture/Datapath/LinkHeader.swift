/// How many bytes of a live frame come before its IP header, for the link types a Linux
/// interface offers libpcap. The capture files hold raw IP (link type 101), so the passive tap
/// cuts this much off each frame; nil means the frame carries no IP and is skipped.
enum LinkHeader {
    static let ethernet: Int32 = 1
    static let linuxCooked: Int32 = 113
    static let linuxCookedV2: Int32 = 276
    static let raw: Set<Int32> = [12, 14, 101, 228, 229]

    /// The longest header cut: Ethernet with two VLAN tags.
    static let longest = 22

    static func isSupported(_ linkType: Int32) -> Bool {
        linkType == ethernet || linkType == linuxCooked || linkType == linuxCookedV2 || raw.contains(linkType)
    }

    static func length(of frame: UnsafeRawBufferPointer, linkType: Int32) -> Int? {
        switch linkType {
        case ethernet:
            // Up to two VLAN tags (802.1Q, 802.1ad) sit between the addresses and the type.
            var typeOffset = 12
            while let type = bigEndian16(frame, at: typeOffset), type == 0x8100 || type == 0x88A8, typeOffset < 20 {
                typeOffset += 4
            }
            return bigEndian16(frame, at: typeOffset).flatMap(isIP) == true ? typeOffset + 2 : nil
        case linuxCooked:
            return bigEndian16(frame, at: 14).flatMap(isIP) == true ? 16 : nil
        case linuxCookedV2:
            return bigEndian16(frame, at: 0).flatMap(isIP) == true ? 20 : nil
        case let type where raw.contains(type):
            return 0
        default:
            return nil
        }
    }

    private static func isIP(_ etherType: UInt16) -> Bool { etherType == 0x0800 || etherType == 0x86DD }

    private static func bigEndian16(_ frame: UnsafeRawBufferPointer, at offset: Int) -> UInt16? {
        guard offset >= 0, offset + 2 <= frame.count else { return nil }
        return UInt16(frame[offset]) << 8 | UInt16(frame[offset + 1])
    }
}
