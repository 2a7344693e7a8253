import Foundation
import PacketBuilding
import TunnelVisionCaptureFiles
import TunnelVisionModel

/// Captures of Google QUIC clients, built: no client that speaks Q043, Q046, Q050 or T051 is packaged
/// for a lab (Chromium dropped them), so the phone's first datagram is composed here by the
/// versions' layouts, one capture per version, for the engine and tshark to read alike.
enum GoogleQUICCaptures {
    static let phone = Endpoint(address: IPAddress(v4: 0xC633_6401), port: 50443)  // 198.51.100.1
    static let server = Endpoint(address: IPAddress(v4: 0xCB00_710A), port: 443)  // 203.0.113.10

    static func write(directory: String) {
        let chlo = { (name: String, version: String) in
            PacketBuilder.googleStreamFrame(data: PacketBuilder.googleClientHello(serverName: name, version: version))
        }
        write(path: "\(directory)/gquic-q043.pcap", datagrams: [
            PacketBuilder.googlePublicHeaderPacket(version: "Q043", connectionID: 0x5A1D_0C43_0000_0001, frames: chlo("q043.wire.test", "Q043")),
        ])
        write(path: "\(directory)/gquic-q046.pcap", datagrams: [
            PacketBuilder.googleLongHeaderPacket(version: "Q046", connectionID: 0x5A1D_0C46_0000_0001, frames: chlo("q046.wire.test", "Q046")),
        ])
        // Google QUIC's CRYPTO frame: type 8, offset 0, the length as a 2-byte QUIC varint.
        let cryptoFrame = { (data: [UInt8]) -> [UInt8] in
            var frame: [UInt8] = [0x08, 0x00]
            frame.appendBigEndian(UInt16(0x4000 | data.count))
            return frame + data
        }
        guard let q050 = PacketBuilder.protectedInitial(
            version: QUICVersion(0x5130_3530), destinationConnectionID: [0x5A, 0x1D, 0x0C, 0x50, 0, 0, 0, 1],
            frames: cryptoFrame(PacketBuilder.googleClientHello(serverName: "q050.wire.test", version: "Q050")), size: 1350)
        else { fail("Q050's Initial could not be protected") }
        write(path: "\(directory)/gquic-q050.pcap", datagrams: [q050])
        let hello = PacketBuilder.handshakeMessage(type: 1, body: PacketBuilder.clientHelloBody(extensions: [
            PacketBuilder.serverNameExtension("t051.wire.test"), PacketBuilder.supportedVersionsExtension([0x0304]),
            PacketBuilder.alpnExtension([Array("h3-T051".utf8)]),
        ]))
        let clientID: [UInt8] = [0x5A, 0x1D, 0x0C, 0x51, 0, 0, 0, 1]
        // The server's Initial: an ACK of the client's packet 0 (Google's layout: 1-byte largest
        // acked and block, no timestamps), then its ServerHello choosing TLS 1.3 and AES-128-GCM.
        let serverHello = PacketBuilder.handshakeMessage(type: 2, body: PacketBuilder.serverHelloBody(
            cipherSuite: 0x1301, extensions: [(43, [0x03, 0x04])]))
        guard let initial = PacketBuilder.protectedInitial(
            version: QUICVersion(0x5430_3531), destinationConnectionID: clientID, frames: cryptoFrame(hello), size: 1350),
            let answer = PacketBuilder.protectedInitial(
                version: QUICVersion(0x5430_3531), from: .server, destinationConnectionID: [],
                sourceConnectionID: [0x5E, 0x7F, 0x0C, 0x51, 0, 0, 0, 1], keyedBy: clientID,
                frames: [0x40, 0x00, 0x00, 0x00, 0x01, 0x00] + cryptoFrame(serverHello), size: 200)
        else { fail("T051's Initials could not be protected") }
        write(path: "\(directory)/gquic-t051.pcap", datagrams: [initial], answers: [answer])
    }

    private static func write(path: String, datagrams: [[UInt8]], answers: [[UInt8]] = []) {
        guard let file = fopen(path, "wb") else { fail("cannot create \(path)") }
        defer { fclose(file) }
        let header = PcapFormat.fileHeader(snapshotLength: PcapFormat.defaultSnapshotLength)
        fwrite(header, 1, header.count, file)
        let packets = datagrams.map { PacketBuilder.udp(from: phone, to: server, payload: $0) }
            + answers.map { PacketBuilder.udp(from: server, to: phone, payload: $0) }
        for (index, packet) in packets.enumerated() {
            var record: [UInt8] = []
            record.appendLittleEndian(UInt32(1_700_000_000 + index))
            record.appendLittleEndian(UInt32(0))
            record.appendLittleEndian(UInt32(packet.count))
            record.appendLittleEndian(UInt32(packet.count))
            fwrite(record, 1, record.count, file)
            fwrite(packet, 1, packet.count, file)
        }
        print("wrote \(path)")
    }
}
