import Testing
import TunnelVisionModel
import TunnelVisionWire
@testable import TunnelVisionRelay

/// ClientHellos as the phone's stream carries them, and the hold's reading of them.
enum Hellos {
    static func record(name: String?, alpn: [String] = [], paddedTo padding: Int = 0) -> [UInt8] {
        var extensions: [(UInt16, [UInt8])] = []
        if let name { extensions.append(PacketBuilder.serverNameExtension(name)) }
        extensions.append(PacketBuilder.supportedVersionsExtension([0x0304, 0x0303]))
        if !alpn.isEmpty { extensions.append(PacketBuilder.alpnExtension(alpn.map { Array($0.utf8) })) }
        // A post-quantum key share makes the hello 1.5–2 kB: padding stands in for its bytes.
        if padding > 0 { extensions.append((21, [UInt8](repeating: 0, count: padding))) }
        return PacketBuilder.handshakeRecord(type: 1, body: PacketBuilder.clientHelloBody(extensions: extensions))
    }

    /// One handshake message split over several records, as large hellos sometimes are.
    static func splitIntoRecords(_ record: [UInt8], pieces: Int) -> [UInt8] {
        let message = Array(record[5...])
        let size = (message.count + pieces - 1) / pieces
        var stream: [UInt8] = []
        var start = 0
        while start < message.count {
            let piece = message[start..<min(start + size, message.count)]
            stream += [22, 3, 1, UInt8(piece.count >> 8), UInt8(piece.count & 0xFF)] + piece
            start += size
        }
        return stream
    }
}

@Suite struct ClientHelloHoldTests {
    @Test func aClientHelloInOneSegmentSettlesWithItsName() throws {
        var hold = ClientHelloHold()
        let hello = Hellos.record(name: "api.example.com", alpn: ["h2", "http/1.1"])
        #expect(hold.append(hello) == hello.count)
        guard case .settled(let reading?) = hold.state else { Issue.record("not settled: \(hold.state)"); return }
        #expect(reading.serverName == "api.example.com")
        #expect(reading.offer?.applicationProtocols == ["h2", "http/1.1"])
        #expect(hold.bytes == hello)
        #expect(hold.room == 0)
    }

    @Test(arguments: [1, 5, 6, 100, 1400])
    func aClientHelloSpreadOverSegmentsWaitsUntilItsLastByte(segment: Int) {
        let hello = Hellos.record(name: "pq.example.com", paddedTo: 1800)
        var hold = ClientHelloHold()
        var offset = 0
        while offset < hello.count {
            #expect(hold.state == .waiting)
            let end = min(offset + segment, hello.count)
            hold.append(Array(hello[offset..<end]))
            offset = end
        }
        guard case .settled(let reading?) = hold.state else { Issue.record("not settled"); return }
        #expect(reading.serverName == "pq.example.com")
        #expect(hold.bytes == hello)
    }

    @Test func aClientHelloOverSeveralRecordsIsStitched() {
        let stream = Hellos.splitIntoRecords(Hellos.record(name: "stitched.example", paddedTo: 3000), pieces: 3)
        var hold = ClientHelloHold()
        hold.append(stream)
        guard case .settled(let reading?) = hold.state else { Issue.record("not settled"); return }
        #expect(reading.serverName == "stitched.example")
    }

    @Test(arguments: [
        Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
        Array("SSH-2.0-OpenSSH_9.2\r\n".utf8),
        [0x17, 0x03, 0x03, 0x00, 0x10] + [UInt8](repeating: 1, count: 16),
    ])
    func bytesThatAreNotAHandshakeSettleWithoutAReading(stream: [UInt8]) {
        var hold = ClientHelloHold()
        hold.append(stream)
        #expect(hold.state == .settled(nil))
    }

    @Test func theHoldNeverTakesMoreThanItsLimit() {
        // A record header that promises a full record, then bytes that never complete it.
        var hold = ClientHelloHold(limit: 1000)
        let header: [UInt8] = [22, 3, 1, 0x40, 0x00, 1, 0x00, 0x3F, 0xFC]
        hold.append(header)
        let taken = hold.append([UInt8](repeating: 0, count: 5000))
        #expect(taken == 1000 - header.count)
        #expect(hold.bytes.count == 1000)
        #expect(hold.state == .full)
        #expect(hold.append([1, 2, 3]) == 0)
    }

    @Test func nothingIsTakenOnceSettled() {
        var hold = ClientHelloHold()
        let hello = Hellos.record(name: "a.example")
        hold.append(hello + [0x17, 3, 3])
        // The hold took the hello's bytes and what came with them in the same read; no more.
        #expect(hold.room == 0)
        #expect(hold.append([9, 9]) == 0)
    }
}
