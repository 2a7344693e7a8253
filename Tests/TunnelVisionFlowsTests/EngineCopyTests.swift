import PacketBuilding
import Testing
import TunnelVisionFlows
import TunnelVisionModel
import TunnelVisionWire

/// The engine is a value, though its live flows and their readings lie in storage of their own:
/// a copy taken while a handshake is being read goes on by itself.
@Suite struct EngineCopyTests {
    static let phone = Endpoint(address: IPAddress("10.9.0.2")!, port: 40000)
    static let server = Endpoint(address: IPAddress("93.184.216.34")!, port: 443)
    static let start: Int64 = 1_700_000_000 * 1_000_000_000

    static func hello(naming name: String) -> [UInt8] {
        let record = PacketBuilder.handshakeRecord(type: 1, body: PacketBuilder.clientHelloBody(extensions: [
            PacketBuilder.serverNameExtension(name),
        ]))
        return PacketBuilder.tcp(from: phone, to: server, sequence: 1001, acknowledgement: 5001, flags: .ack, payload: record)
    }

    static func feed(_ engine: inout FlowEngine, _ frame: [UInt8], at offset: Int64) {
        frame.withUnsafeBytes { engine.process(packet: $0, linkType: .raw, timestampNanoseconds: start + offset) }
    }

    @Test func aCopyTakenMidHandshakeReadsItsOwnHelloAndLeavesTheOriginalsUnread() {
        var original = FlowEngine()
        Self.feed(&original, PacketBuilder.tcp(from: Self.phone, to: Self.server, sequence: 1000, flags: .syn), at: 0)
        Self.feed(&original, PacketBuilder.tcp(from: Self.server, to: Self.phone, sequence: 5000, acknowledgement: 1001,
                                               flags: [.syn, .ack]), at: 1)
        var copy = original
        Self.feed(&copy, Self.hello(naming: "copy.example"), at: 2)
        // Had the copy read the original's stream too, these bytes would be duplicates to it.
        Self.feed(&original, Self.hello(naming: "original.example"), at: 3)

        let copied = copy.finishAll().flows
        let kept = original.finishAll().flows
        #expect(copied.map(\.state.sni) == ["copy.example"])
        #expect(kept.map(\.state.sni) == ["original.example"])
        #expect(copied.map(\.state.packetCount) == [3])
        #expect(kept.map(\.state.packetCount) == [3])
    }
}
