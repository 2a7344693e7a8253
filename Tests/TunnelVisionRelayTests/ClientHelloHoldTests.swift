import PacketBuilding
import Testing
import TunnelVisionModel
@testable import TunnelVisionRelay
import TunnelVisionWire

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

    /// Past one record's 16 KiB: the hello spans records and is read whole, up to the hold.
    @Test(arguments: [(17 * 1024, 2), (16_620, 2), (40 * 1024, 3), (60 * 1024, 4), (60 * 1024, 61)])
    func aClientHelloOverSixteenKiBSpanningRecordsIsRead(size: Int, pieces: Int) {
        let stream = Hellos.splitIntoRecords(Hellos.record(name: "big.example", paddedTo: size), pieces: pieces)
        #expect(stream.count > 16 * 1024)
        var hold = ClientHelloHold()
        var offset = 0
        while offset < stream.count {
            let end = min(offset + 1400, stream.count)
            hold.append(Array(stream[offset..<end]))
            offset = end
        }
        guard case .settled(let reading?) = hold.state else { Issue.record("not settled: \(hold.state)"); return }
        #expect(reading.serverName == "big.example")
        #expect(hold.bytes == stream)
    }

    struct Hostile: Sendable, CustomTestStringConvertible {
        let label: String
        let stream: [UInt8]
        let expected: ClientHelloHold.State
        var testDescription: String { label }
    }

    @Test(arguments: [
        // A ClientHello header that promises 16 MiB, its records coming on: the hold fills, nothing more.
        Hostile(label: "a message of 2^24 − 1 bytes over records → the hold fills",
                stream: (0..<5).flatMap { index -> [UInt8] in
                    let body: [UInt8] = index == 0 ? [1, 0xFF, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 16380) : [UInt8](repeating: 0, count: 16384)
                    return [22, 3, 3, 0x40, 0x00] + body
                }, expected: .full),
        Hostile(label: "a record longer than the record layer allows → not a hello",
                stream: [22, 3, 3, 0x41, 0x01, 1, 0, 0, 4], expected: .settled(nil)),
        Hostile(label: "a hello cut off by application data → not a hello",
                stream: [22, 3, 3, 0, 8, 1, 0, 0x50, 0, 3, 3, 0, 0, 23, 3, 3, 0, 1, 0], expected: .settled(nil)),
        Hostile(label: "a hello cut off by an alert → not a hello",
                stream: [22, 3, 3, 0, 8, 1, 0, 0x50, 0, 3, 3, 0, 0, 21, 3, 3, 0, 2, 2, 40], expected: .settled(nil)),
        Hostile(label: "empty handshake records before the rest → still waiting",
                stream: [22, 3, 3, 0, 0, 22, 3, 3, 0, 0, 22, 3, 3, 0, 2, 1, 0], expected: .waiting),
        Hostile(label: "a message body too short for a hello → not a hello",
                stream: [22, 3, 3, 0, 6, 1, 0, 0, 2, 3, 3], expected: .settled(nil)),
    ])
    func hostileLengthsAcrossRecordsNeitherTrapNorOverreach(hostile: Hostile) {
        var hold = ClientHelloHold()
        hold.append(hostile.stream)
        #expect(hold.state == hostile.expected)
        #expect(hold.bytes.count <= hold.limit)
    }

    @Test func aTrailingDotIsReadWithoutItAndKeptAsSent() {
        var hold = ClientHelloHold()
        hold.append(Hellos.record(name: "TLS13.lab."))
        guard case .settled(let reading?) = hold.state else { Issue.record("not settled: \(hold.state)"); return }
        #expect(reading.serverName == "tls13.lab")
        #expect(reading.serverNameAsSent == "tls13.lab.")
        var plain = ClientHelloHold()
        plain.append(Hellos.record(name: "tls13.lab"))
        guard case .settled(let bare?) = plain.state else { Issue.record("not settled"); return }
        #expect(bare.serverNameAsSent == nil)
    }

    @Test(arguments: [".", "a..", "lab.."])
    func onlyOneTrailingDotAfterALabelIsTaken(name: String) {
        var hold = ClientHelloHold()
        hold.append(Hellos.record(name: name))
        guard case .settled(let reading?) = hold.state else { Issue.record("not settled"); return }
        #expect(reading.serverName == nil)
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
