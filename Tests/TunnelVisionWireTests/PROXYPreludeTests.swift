import Testing
import TunnelVisionModel
@testable import TunnelVisionWire

/// The PROXY protocol header in front of a stream (HAProxy's specification, v1 and v2).
@Suite struct PROXYPreludeTests {
    static let hello = CleartextStartTests.hello
    static let v2Signature = PROXYPrelude.signature

    static func read(_ bytes: [UInt8]) -> PROXYPrelude.ClientReading {
        bytes.withUnsafeBytes { PROXYPrelude.readClient($0) }
    }

    static func endpoint(_ address: String, _ port: UInt16) -> Endpoint {
        Endpoint(address: IPAddress(address)!, port: port)
    }

    @Test func aVersionOneLineAnnouncesBothEndsAndTLSFollowsIt() {
        let line = Array("PROXY TCP4 192.0.2.10 198.51.100.7 51000 443\r\n".utf8)
        let announced = ProxyProtocolAnnouncement(version: 1, source: Self.endpoint("192.0.2.10", 51000),
                                                  destination: Self.endpoint("198.51.100.7", 443))
        #expect(Self.read(line + Self.hello) == .header(announced, clientOffset: line.count))
        #expect(CleartextStartTests.decide(line + Self.hello) == .upgraded(.proxyProtocol, clientOffset: line.count))
        let v6 = Array("PROXY TCP6 2001:db8::1 2001:db8::2 1 65535\r\n".utf8)
        #expect(Self.read(v6) == .header(ProxyProtocolAnnouncement(
            version: 1, source: Self.endpoint("2001:db8::1", 1), destination: Self.endpoint("2001:db8::2", 65535)), clientOffset: v6.count))
        let unknown = Array("PROXY UNKNOWN ffff::1 what ever\r\n".utf8)
        #expect(Self.read(unknown) == .header(ProxyProtocolAnnouncement(version: 1, source: nil, destination: nil), clientOffset: unknown.count))
    }

    @Test(arguments: [
        "PROXY TCP4 192.0.2.10 198.51.100.7 51000 65536\r\n",  // port out of range
        "PROXY TCP4 2001:db8::1 198.51.100.7 1 2\r\n",  // family and address disagree
        "PROXY TCP4 192.0.2.10 198.51.100.7 1\r\n",  // a field missing
        "PROXY TCP4  192.0.2.10 198.51.100.7 1 2\r\n",  // two spaces
        "PROXY TCP4 192.0.2.10 198.51.100.7 1 2\n",  // LF without CR
        "PROXY UDP4 192.0.2.10 198.51.100.7 1 2\r\n",
        "PROXY TCP4 192.0.2.10 198.51.100.7 +1 2\r\n",
        "PASS secret\r\n",
    ])
    func aLineThatIsNotAHeaderIsRefused(_ text: String) {
        #expect(Self.read(Array(text.utf8)) == .notPROXY)
    }

    @Test func aHeaderCutShortWaitsAndAnEndlessOneIsRefused() {
        #expect(Self.read(Array("PRO".utf8)) == .needMore)
        #expect(Self.read(Array("PROXY TCP4 192.0.2.10".utf8)) == .needMore)
        #expect(Self.read(Array(Self.v2Signature.prefix(7))) == .needMore)
        // 107 bytes with no line end: past the longest line the specification allows.
        #expect(Self.read(Array("PROXY ".utf8) + [UInt8](repeating: 0x41, count: 101)) == .notPROXY)
    }

    static func v2(command: UInt8 = 0x21, family: UInt8 = 0x11, block: [UInt8]) -> [UInt8] {
        v2Signature + [command, family, UInt8(block.count >> 8), UInt8(block.count & 0xFF)] + block
    }

    @Test func aVersionTwoHeaderAnnouncesBothEndsAndSkipsItsExtensions() {
        // IPv4 over TCP, then a TLV (type 0x04 NOOP, three bytes) the reader passes over.
        let block: [UInt8] = [192, 0, 2, 10, 198, 51, 100, 7, 0xC7, 0x38, 0x01, 0xBB, 0x04, 0x00, 0x03, 0, 0, 0]
        let header = Self.v2(block: block)
        #expect(Self.read(header + Self.hello) == .header(ProxyProtocolAnnouncement(
            version: 2, source: Self.endpoint("192.0.2.10", 51000), destination: Self.endpoint("198.51.100.7", 443)),
            clientOffset: header.count))
        let v6 = Self.v2(family: 0x21, block: IPAddress("2001:db8::1")!.bytes + IPAddress("2001:db8::2")!.bytes + [0, 1, 0, 2])
        #expect(Self.read(v6) == .header(ProxyProtocolAnnouncement(
            version: 2, source: Self.endpoint("2001:db8::1", 1), destination: Self.endpoint("2001:db8::2", 2)), clientOffset: v6.count))
        // LOCAL: the relay's own connection, nothing announced.
        let local = Self.v2(command: 0x20, family: 0x00, block: [])
        #expect(Self.read(local) == .header(ProxyProtocolAnnouncement(version: 2, source: nil, destination: nil), clientOffset: 16))
    }

    @Test func aVersionTwoHeaderIsReadOnlyWhenItsLengthsHold() {
        // The length promises more than arrived: more bytes decide.
        var promising = Self.v2(block: [UInt8](repeating: 0, count: 12))
        promising[15] = 40
        #expect(Self.read(promising) == .needMore)
        // Addresses that do not fit the block the length gives.
        #expect(Self.read(Self.v2(block: [1, 2, 3, 4, 5])) == .notPROXY)
        #expect(Self.read(Self.v2(family: 0x21, block: [UInt8](repeating: 0, count: 12))) == .notPROXY)
        // Version 1 in the binary form, a command past PROXY, a family past UNIX.
        #expect(Self.read(Self.v2(command: 0x11, block: [])) == .notPROXY)
        #expect(Self.read(Self.v2(command: 0x22, block: [])) == .notPROXY)
        #expect(Self.read(Self.v2(family: 0x41, block: [UInt8](repeating: 0, count: 12))) == .notPROXY)
    }

    @Test func theStoredTextReadsBackAsItWasWritten() {
        for announced in [
            ProxyProtocolAnnouncement(version: 1, source: Self.endpoint("192.0.2.10", 51000), destination: Self.endpoint("198.51.100.7", 443)),
            ProxyProtocolAnnouncement(version: 2, source: Self.endpoint("2001:db8::1", 1), destination: Self.endpoint("2001:db8::2", 2)),
            ProxyProtocolAnnouncement(version: 2, source: nil, destination: nil),
        ] {
            #expect(ProxyProtocolAnnouncement(storedText: announced.storedText) == announced)
        }
        #expect(ProxyProtocolAnnouncement(storedText: "1 nonsense -") == nil)
    }
}
