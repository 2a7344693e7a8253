/// Hand-made IP packets: enough of a header for tshark to name the addresses and ports.
public enum TestPackets {
    public static func udpV4(source: [UInt8], destination: [UInt8], sourcePort: UInt16, destinationPort: UInt16, payload: [UInt8]) -> [UInt8] {
        let total = 20 + 8 + payload.count
        var packet: [UInt8] = [0x45, 0, UInt8(total >> 8), UInt8(total & 0xFF), 0, 1, 0x40, 0, 64, 17, 0, 0]
        packet += source + destination
        var sum: UInt32 = 0
        for index in stride(from: 0, to: 20, by: 2) { sum += UInt32(packet[index]) << 8 | UInt32(packet[index + 1]) }
        while sum > 0xFFFF { sum = (sum & 0xFFFF) + (sum >> 16) }
        let checksum = ~UInt16(sum)
        packet[10] = UInt8(checksum >> 8)
        packet[11] = UInt8(checksum & 0xFF)
        let udpLength = 8 + payload.count
        packet += [UInt8(sourcePort >> 8), UInt8(sourcePort & 0xFF), UInt8(destinationPort >> 8), UInt8(destinationPort & 0xFF),
                   UInt8(udpLength >> 8), UInt8(udpLength & 0xFF), 0, 0]
        return packet + payload
    }

    public static func tcpV6(sourceLast: UInt8, destinationLast: UInt8, sourcePort: UInt16, destinationPort: UInt16, payload: [UInt8]) -> [UInt8] {
        let tcpLength = 20 + payload.count
        var packet: [UInt8] = [0x60, 0, 0, 0, UInt8(tcpLength >> 8), UInt8(tcpLength & 0xFF), 6, 64]
        packet += [0xFD, 0x77] + [UInt8](repeating: 0, count: 13) + [sourceLast]
        packet += [0xFD, 0x88] + [UInt8](repeating: 0, count: 13) + [destinationLast]
        packet += [UInt8(sourcePort >> 8), UInt8(sourcePort & 0xFF), UInt8(destinationPort >> 8), UInt8(destinationPort & 0xFF)]
        packet += [0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x18, 0xFF, 0xFF, 0, 0, 0, 0]
        return packet + payload
    }
}
