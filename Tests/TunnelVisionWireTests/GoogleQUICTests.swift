import PacketBuilding
import Testing
import TunnelVisionModel
@testable import TunnelVisionWire

/// Google QUIC's unencrypted client hello (Q043's public header, Q046's long header) and the
/// Google frames T050/T051 carry inside their Initials.
@Suite struct GoogleQUICTests {
    static let q043 = QUICVersion(0x5130_3433)
    static let q046 = QUICVersion(0x5130_3436)

    static func hello(_ name: String? = "www.example.org", version: String = "Q043") -> [UInt8] {
        PacketBuilder.googleStreamFrame(data: PacketBuilder.googleClientHello(serverName: name, version: version))
    }

    static func read(_ datagrams: [[UInt8]]) -> GoogleQUICHandshakeReader {
        var reader = GoogleQUICHandshakeReader()
        for datagram in datagrams { datagram.withUnsafeBytes { reader.read(clientDatagram: $0) } }
        return reader
    }

    @Test func readsTheNameAndVersionOfAQ043Hello() throws {
        let packet = PacketBuilder.googlePublicHeaderPacket(connectionID: 0x1122_3344_5566_7788, frames: Self.hello())
        let reader = Self.read([packet])
        let hello = try #require(reader.clientHello)
        #expect(hello.hello.serverName == "www.example.org")
        #expect(hello.version == Self.q043)
        #expect(reader.version == Self.q043)
        #expect(reader.isSettled)
    }

    @Test func readsTheNameAndVersionOfAQ046Hello() throws {
        let packet = PacketBuilder.googleLongHeaderPacket(connectionID: 42, frames: Self.hello("Media.Example.COM.", version: "Q046"))
        let reader = Self.read([packet])
        let hello = try #require(reader.clientHello)
        #expect(hello.hello.serverName == "media.example.com")
        #expect(hello.hello.serverNameAsSent == "media.example.com.")
        #expect(hello.version == Self.q046)
        #expect(reader.version == Self.q046)
    }

    @Test func aHelloWithoutANameIsReadWithoutOne() throws {
        let reader = Self.read([PacketBuilder.googlePublicHeaderPacket(connectionID: 1, frames: Self.hello(nil))])
        let hello = try #require(reader.clientHello)
        #expect(hello.hello.serverName == nil)
        #expect(hello.version == Self.q043)
    }

    @Test func aHelloAcrossTwoPacketsIsReassembledByOffset() throws {
        let message = PacketBuilder.googleClientHello(serverName: "split.example", version: "Q043")
        let second = PacketBuilder.googlePublicHeaderPacket(
            connectionID: 7, packetNumber: 2, frames: PacketBuilder.googleStreamFrame(offset: 600, data: Array(message[600...])))
        let first = PacketBuilder.googlePublicHeaderPacket(
            connectionID: 7, packetNumber: 1, frames: PacketBuilder.googleStreamFrame(data: Array(message[..<600])))
        let reader = Self.read([second, first])
        #expect(reader.clientHello?.hello.serverName == "split.example")
    }

    /// A capture that starts late sees the client's next hello at its own offset, not at 0.
    @Test func aHelloIsReadFromTheOffsetItBeginsAt() throws {
        let message = PacketBuilder.googleClientHello(serverName: "late.example", version: "Q046")
        let packet = PacketBuilder.googleLongHeaderPacket(
            connectionID: 9, packetNumber: 4, frames: PacketBuilder.googleStreamFrame(offset: 1024, data: message))
        #expect(Self.read([packet]).clientHello?.hello.serverName == "late.example")
    }

    @Test func bothEndsLongHeadersNameTheirVersion() {
        let server = bytes("c3 51303436 05 eacfe6e706df272d 00000005") + [UInt8](repeating: 0, count: 20)
        #expect(server.withUnsafeBytes { GoogleQUICPacket.longHeaderVersion($0) } == Self.q046)
        #expect(bytes("c3 51303530 50").withUnsafeBytes { GoogleQUICPacket.longHeaderVersion($0) } == nil)
        #expect(bytes("09 51303436").withUnsafeBytes { GoogleQUICPacket.longHeaderVersion($0) } == nil)
    }

    /// Another stream's data, a reset, a packet without version, a version outside the layouts read.
    @Test(arguments: [
        PacketBuilder.googlePublicHeaderPacket(connectionID: 1, frames: PacketBuilder.googleStreamFrame(
            streamID: 3, data: PacketBuilder.googleClientHello(serverName: "x.example", version: "Q043"))),
        [0x0B] + Array(PacketBuilder.googlePublicHeaderPacket(connectionID: 1, frames: hello()).dropFirst()),
        [0x08] + Array(PacketBuilder.googlePublicHeaderPacket(connectionID: 1, frames: hello()).dropFirst()),
        PacketBuilder.googlePublicHeaderPacket(version: "Q038", connectionID: 1, frames: hello()),
        PacketBuilder.googleLongHeaderPacket(version: "Q050", connectionID: 1, frames: hello()),
        PacketBuilder.googleLongHeaderPacket(version: "T051", connectionID: 1, frames: hello()),
    ])
    func packetsThatAreNoHelloOfTheseVersionsAreNotRead(_ packet: [UInt8]) {
        #expect(Self.read([packet]).clientHello == nil)
    }

    @Test func theReadingEndsAfterAFewDatagramsWithoutAHello() {
        let other = [UInt8](repeating: 0x40, count: 60)
        let reader = Self.read(Array(repeating: other, count: GoogleQUICHandshakeReader.unreadDatagramLimit))
        #expect(reader.isSettled && reader.clientHello == nil)
    }

    /// An end offset going back, too many entries, tags out of order (they ascend as little-endian
    /// numbers: "SNI" before "AEAD"), VER not four bytes, another message: not a hello.
    @Test(arguments: [
        bytes("43484c4f 0200 0000 534e4900 02000000 41454144 01000000 61 62"),
        bytes("43484c4f 8100 0000"),
        bytes("43484c4f 0200 0000 41454144 02000000 534e4900 01000000 61 62"),
        PacketBuilder.googleHandshakeMessage([("VER", [0x51, 0x30])]),
        PacketBuilder.googleHandshakeMessage(tag: "SHLO", [("SNI", Array("a.example".utf8))]),
    ])
    func malformedMessagesAreNoHello(_ message: [UInt8]) {
        #expect(message.withUnsafeBytes { GoogleClientHello.read($0) } == .notAHello)
    }

    /// A message cut anywhere asks for more, and never traps.
    @Test func aMessageCutShortAsksForMore() {
        let message = PacketBuilder.googleClientHello(serverName: "cut.example", version: "Q043")
        for length in [0, 3, 6, 20, message.count - 1] {
            #expect(Array(message.prefix(length)).withUnsafeBytes { GoogleClientHello.read($0) } == .needsMore)
        }
    }

    /// T050/T051's CRYPTO frame: type 8, offset and length as QUIC varints; STREAM frames of
    /// stream 1 too; PADDING, PING and ACKs walked past (one with a 2-byte largest acked, two
    /// further blocks and two timestamps); another frame type ends the walk.
    @Test func googleFramesHandOverCryptoAndStreamOneData() {
        let ack = bytes("40 05 0000 01 00") + bytes("65 0102 0000 02 0301 00 0200 02 0201 02 01 00000010 01 0005")
        let frames = bytes("00 07 08 03 03 646566") + ack + bytes("08 00 03 616263") + PacketBuilder.googleStreamFrame(data: Array("xyz".utf8))
            + PacketBuilder.googleStreamFrame(streamID: 5, data: Array("no".utf8)) + bytes("02 08 00 01 7a")
        var seen: [(UInt64, String)] = []
        frames.withUnsafeBytes { GoogleQUICFrames.forEach(in: $0) { seen.append(($0, String(decoding: $1, as: UTF8.self))) } }
        #expect(seen.map(\.0) == [3, 0, 0])
        #expect(seen.map(\.1) == ["def", "abc", "xyz"])
    }

    @Test func anAckCutShortEndsTheWalk() {
        var count = 0
        bytes("65 0102 0000 02 03 01 00 02 00 02 02 01 08 00 01 7a").withUnsafeBytes { GoogleQUICFrames.forEach(in: $0) { _, _ in count += 1 } }
        #expect(count == 0)
    }

    @Test func aGoogleFrameLongerThanThePacketEndsTheWalk() {
        var count = 0
        bytes("08 00 40 ff 616263").withUnsafeBytes { GoogleQUICFrames.forEach(in: $0) { _, _ in count += 1 } }
        bytes("a0 01 00 09 616263").withUnsafeBytes { GoogleQUICFrames.forEach(in: $0) { _, _ in count += 1 } }
        #expect(count == 0)
    }

    /// T051's Initial opens with its salt; its ClientHello rides in Google QUIC's CRYPTO frame
    /// (type 8), which the IETF frame walk stopped at.
    @Test(arguments: [0x5430_3531 as UInt32, 0x5430_3530])
    func readsTheNameInATGoogleInitial(version: UInt32) throws {
        let datagram = try #require(Self.googleTLSInitial(version: QUICVersion(version), name: "t05x.example"))
        var reader = QUICHandshakeReader()
        datagram.withUnsafeBytes { reader.read(datagram: $0, from: .client) }
        #expect(reader.openedClientVersion == QUICVersion(version))
        #expect(reader.clientHello?.serverName == "t05x.example")
    }

    /// Q050's Initial opens with its own salt; its CRYPTO frame (Google's layout) carries a CHLO.
    @Test func readsTheNameInAQ050Initial() throws {
        let chlo = PacketBuilder.googleClientHello(serverName: "q050.example", version: "Q050")
        var frame: [UInt8] = [0x08, 0x00]
        frame.appendBigEndian(UInt16(0x4000 | chlo.count))
        let datagram = try #require(PacketBuilder.protectedInitial(
            version: QUICVersion(0x5130_3530), destinationConnectionID: bytes("8394c8f03e515708"), frames: frame + chlo, size: 1350))
        var reader = QUICHandshakeReader()
        datagram.withUnsafeBytes { reader.read(datagram: $0, from: .client) }
        #expect(reader.openedClientVersion == QUICVersion(0x5130_3530))
        #expect(reader.clientHello?.serverName == "q050.example")
        #expect(reader.isClientSettled)
    }

    /// A client Initial of `version` whose CRYPTO frame (Google's layout) holds a ClientHello.
    static func googleTLSInitial(version: QUICVersion, name: String) -> [UInt8]? {
        let hello = PacketBuilder.handshakeMessage(type: 1, body: PacketBuilder.clientHelloBody(extensions: [
            PacketBuilder.serverNameExtension(name), PacketBuilder.supportedVersionsExtension([0x0304]),
        ]))
        var frame: [UInt8] = [0x08, 0x00]
        frame.appendBigEndian(UInt16(0x4000 | hello.count))
        return PacketBuilder.protectedInitial(
            version: version, destinationConnectionID: bytes("8394c8f03e515708"), frames: frame + hello)
    }
}
