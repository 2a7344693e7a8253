import Foundation

/// A raw-IP pcap of many short TCP/443 flows (SYN, SYN-ACK, a ClientHello with SNI, a TLS 1.3
/// ServerHello, data, FIN) and DNS answers: the engine's work in the proportions of real traffic.
enum SyntheticCapture {
    static func write(path: String, packets: Int) {
        guard let file = fopen(path, "wb") else { fail("cannot create \(path)") }
        defer { fclose(file) }
        var header: [UInt8] = []
        header.appendLittle(UInt32(0xA1B2_C3D4)); header.appendLittle(UInt16(2)); header.appendLittle(UInt16(4))
        header.appendLittle(UInt32(0)); header.appendLittle(UInt32(0)); header.appendLittle(UInt32(262_144)); header.appendLittle(UInt32(101))
        fwrite(header, 1, header.count, file)
        var written = 0, flow = 0
        var seconds: UInt32 = 1_700_000_000, micros: UInt32 = 0
        while written < packets {
            for frame in handshake(flowIndex: flow) where written < packets {
                var record: [UInt8] = []
                record.appendLittle(seconds); record.appendLittle(micros)
                record.appendLittle(UInt32(frame.count)); record.appendLittle(UInt32(frame.count))
                fwrite(record, 1, record.count, file)
                fwrite(frame, 1, frame.count, file)
                written += 1
                micros += 20
                if micros >= 1_000_000 { micros = 0; seconds += 1 }
            }
            flow += 1
        }
    }

    /// The packets of one flow; the client address and port vary with the index.
    static func handshake(flowIndex index: Int) -> [[UInt8]] {
        let client: UInt32 = 0x0A00_0000 | UInt32(truncatingIfNeeded: index >> 14) & 0xFFFF
        let server: UInt32 = 0x5DB8_D822
        let port = UInt16(truncatingIfNeeded: 1024 + index % 60000)
        let hello = clientHello(name: "host\(index % 1000).example.com")
        let serverHello = serverHelloRecord()
        var frames: [[UInt8]] = []
        frames.append(tcp(from: client, to: server, ports: (port, 443), seq: 1000, ack: 0, flags: 0x02, payload: []))
        frames.append(tcp(from: server, to: client, ports: (443, port), seq: 5000, ack: 1001, flags: 0x12, payload: []))
        frames.append(tcp(from: client, to: server, ports: (port, 443), seq: 1001, ack: 5001, flags: 0x10, payload: []))
        frames.append(tcp(from: client, to: server, ports: (port, 443), seq: 1001, ack: 5001, flags: 0x18, payload: hello))
        frames.append(tcp(from: server, to: client, ports: (443, port), seq: 5001, ack: 1001 + UInt32(hello.count), flags: 0x18, payload: serverHello))
        let data = [UInt8](repeating: 0x17, count: 600)
        for step in 0..<4 {
            frames.append(tcp(from: server, to: client, ports: (443, port), seq: 5001 + UInt32(serverHello.count + step * 600),
                              ack: 1001 + UInt32(hello.count), flags: 0x10, payload: data))
        }
        frames.append(tcp(from: client, to: server, ports: (port, 443), seq: 1001 + UInt32(hello.count), ack: 0, flags: 0x11, payload: []))
        return frames
    }

    private static func clientHello(name: String) -> [UInt8] {
        var sni: [UInt8] = [0x00, 0x00]
        let nameBytes = Array(name.utf8)
        let listLength = nameBytes.count + 3
        sni.appendBig(UInt16(listLength + 2)); sni.appendBig(UInt16(listLength)); sni.append(0)
        sni.appendBig(UInt16(nameBytes.count)); sni += nameBytes
        let versions: [UInt8] = [0x00, 0x2B, 0x00, 0x05, 0x04, 0x03, 0x04, 0x03, 0x03]
        let alpn: [UInt8] = [0x00, 0x10, 0x00, 0x0E, 0x00, 0x0C, 0x02] + Array("h2".utf8) + [0x08] + Array("http/1.1".utf8)
        let extensions = sni + versions + alpn
        var body: [UInt8] = [0x03, 0x03] + [UInt8](repeating: 7, count: 32) + [0]
        body += [0x00, 0x04, 0x13, 0x01, 0x13, 0x02, 0x01, 0x00]
        body.appendBig(UInt16(extensions.count)); body += extensions
        return record(handshakeType: 1, body: body)
    }

    private static func serverHelloRecord() -> [UInt8] {
        var body: [UInt8] = [0x03, 0x03] + [UInt8](repeating: 9, count: 32) + [0, 0x13, 0x01, 0x00]
        body += [0x00, 0x06, 0x00, 0x2B, 0x00, 0x02, 0x03, 0x04]
        return record(handshakeType: 2, body: body)
    }

    private static func record(handshakeType: UInt8, body: [UInt8]) -> [UInt8] {
        var message: [UInt8] = [handshakeType, UInt8(body.count >> 16), UInt8((body.count >> 8) & 0xFF), UInt8(body.count & 0xFF)]
        message += body
        var record: [UInt8] = [22, 3, 1]
        record.appendBig(UInt16(message.count))
        return record + message
    }

    private static func tcp(from source: UInt32, to destination: UInt32, ports: (UInt16, UInt16),
                            seq: UInt32, ack: UInt32, flags: UInt8, payload: [UInt8]) -> [UInt8] {
        var packet: [UInt8] = [0x45, 0]
        packet.appendBig(UInt16(40 + payload.count)); packet += [0, 0, 0x40, 0, 64, 6, 0, 0]
        packet.appendBig(source); packet.appendBig(destination)
        packet.appendBig(ports.0); packet.appendBig(ports.1); packet.appendBig(seq); packet.appendBig(ack)
        packet += [0x50, flags, 0xFF, 0xFF, 0, 0, 0, 0]
        return packet + payload
    }
}

extension Array where Element == UInt8 {
    mutating func appendBig<T: FixedWidthInteger>(_ value: T) {
        for shift in stride(from: T.bitWidth - 8, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: value >> T(shift))) }
    }

    mutating func appendLittle<T: FixedWidthInteger>(_ value: T) {
        for shift in stride(from: 0, to: T.bitWidth, by: 8) { append(UInt8(truncatingIfNeeded: value >> T(shift))) }
    }
}
