import Foundation
import PacketBuilding
import TunnelVisionCaptureFiles
import TunnelVisionModel
import TunnelVisionWire

/// A raw-IP pcap of many short TCP/443 flows (SYN, SYN-ACK, ACK, a ClientHello with SNI, a TLS 1.3
/// ServerHello, data, FIN): the engine's per-packet work in the proportions of real traffic.
enum SyntheticCapture {
    static func write(path: String, packets: Int) {
        guard let file = fopen(path, "wb") else { fail("cannot create \(path)") }
        defer { fclose(file) }
        let header = PcapFormat.fileHeader(snapshotLength: PcapFormat.defaultSnapshotLength)
        fwrite(header, 1, header.count, file)
        var written = 0, flow = 0
        var microseconds: UInt64 = 1_700_000_000 * 1_000_000
        while written < packets {
            for frame in handshake(flowIndex: flow) where written < packets {
                var record: [UInt8] = []
                record.appendLittleEndian(UInt32(truncatingIfNeeded: microseconds / 1_000_000))
                record.appendLittleEndian(UInt32(truncatingIfNeeded: microseconds % 1_000_000))
                record.appendLittleEndian(UInt32(frame.count))
                record.appendLittleEndian(UInt32(frame.count))
                fwrite(record, 1, record.count, file)
                fwrite(frame, 1, frame.count, file)
                written += 1
                microseconds += 20
            }
            flow += 1
        }
    }

    /// The packets of one flow; the client address and port vary with the index.
    static func handshake(flowIndex index: Int) -> [[UInt8]] {
        let client = Endpoint(address: IPAddress(v4: 0x0A00_0000 | UInt32(truncatingIfNeeded: index >> 14) & 0xFFFF),
                              port: UInt16(truncatingIfNeeded: 1024 + index % 60000))
        let server = Endpoint(address: IPAddress(v4: 0x5DB8_D822), port: 443)
        let hello = PacketBuilder.handshakeRecord(type: 1, body: PacketBuilder.clientHelloBody(extensions: [
            PacketBuilder.serverNameExtension("host\(index % 1000).example.com"),
            PacketBuilder.supportedVersionsExtension([0x0304, 0x0303]),
            PacketBuilder.alpnExtension([Array("h2".utf8), Array("http/1.1".utf8)]),
        ]))
        let serverHello = PacketBuilder.handshakeRecord(type: 2, body: PacketBuilder.serverHelloBody(
            cipherSuite: 0x1301, extensions: [(43, [0x03, 0x04])]
        ))
        let clientData: UInt32 = 1001, serverData: UInt32 = 5001
        var frames: [[UInt8]] = [
            PacketBuilder.tcp(from: client, to: server, sequence: 1000, flags: .syn),
            PacketBuilder.tcp(from: server, to: client, sequence: 5000, acknowledgement: clientData, flags: [.syn, .ack]),
            PacketBuilder.tcp(from: client, to: server, sequence: clientData, acknowledgement: serverData, flags: .ack),
            PacketBuilder.tcp(from: client, to: server, sequence: clientData, acknowledgement: serverData, flags: .ack, payload: hello),
            PacketBuilder.tcp(from: server, to: client, sequence: serverData, acknowledgement: clientData + UInt32(hello.count),
                              flags: .ack, payload: serverHello),
        ]
        let data = [UInt8](repeating: 0x17, count: 200)
        for step in 0..<4 {
            frames.append(PacketBuilder.tcp(from: server, to: client, sequence: serverData + UInt32(serverHello.count + step * 200),
                                            acknowledgement: clientData + UInt32(hello.count), flags: .ack, payload: data))
        }
        frames.append(PacketBuilder.tcp(from: client, to: server, sequence: clientData + UInt32(hello.count), flags: [.fin, .ack]))
        return frames
    }
}
