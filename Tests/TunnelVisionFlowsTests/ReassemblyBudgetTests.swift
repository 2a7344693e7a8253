import Foundation
import PacketBuilding
import Testing
import TunnelVisionFlows
import TunnelVisionModel
import TunnelVisionWire

/// The reassembly of every live flow has one ceiling: the oldest readings are given up first.
@Suite("The flow engine's reassembly budget")
struct ReassemblyBudgetTests {
    static let server = Endpoint(address: IPAddress("198.51.100.13")!, port: 443)
    static let start: Int64 = 1_700_000_000 * 1_000_000_000

    static func feed(_ engine: inout FlowEngine, _ packet: [UInt8], at time: Int64) {
        packet.withUnsafeBytes { engine.process(packet: $0, linkType: .raw, timestampNanoseconds: time) }
    }

    /// A ClientHello naming `name`, padded to about `size` bytes.
    static func hello(_ name: String, size: Int) -> [UInt8] {
        PacketBuilder.handshakeRecord(type: 1, body: PacketBuilder.clientHelloBody(extensions: [
            PacketBuilder.serverNameExtension(name), (21, [UInt8](repeating: 0, count: size)),
        ]))
    }

    @Test("Past the budget the oldest flow's opening is given up, never a packet, and the newest are read")
    func oldestGivenUp() throws {
        var engine = FlowEngine(configuration: FlowEngineConfiguration(
            clientNetworks: [IPNetwork("10.77.0.0/24")!], reassemblyLimit: 16 * 1024, reassemblyBudget: 10_000))
        var hellos: [[UInt8]] = []
        // Five phones' connections each send the first 3,000 bytes of a 4,000-byte ClientHello.
        for index in 0..<5 {
            let phone = Endpoint(address: IPAddress("10.77.0.\(10 + index)")!, port: 40_000)
            let time = Self.start + Int64(index) * 1_000_000
            let record = Self.hello("host\(index).lab", size: 4000)
            hellos.append(record)
            Self.feed(&engine, PacketBuilder.tcp(from: phone, to: Self.server, sequence: 100, flags: .syn), at: time)
            Self.feed(&engine, PacketBuilder.tcp(from: Self.server, to: phone, sequence: 900, acknowledgement: 101, flags: [.syn, .ack]), at: time + 1)
            Self.feed(&engine, PacketBuilder.tcp(from: phone, to: Self.server, sequence: 101, acknowledgement: 901, flags: .ack,
                                                 payload: Array(record[0..<3000])), at: time + 2)
        }
        #expect(engine.statistics.reassemblyGivenUp >= 1)
        // The rest of each ClientHello arrives.
        for index in 0..<5 {
            let phone = Endpoint(address: IPAddress("10.77.0.\(10 + index)")!, port: 40_000)
            Self.feed(&engine, PacketBuilder.tcp(from: phone, to: Self.server, sequence: 3101, acknowledgement: 901, flags: .ack,
                                                 payload: Array(hellos[index][3000...])), at: Self.start + 10_000_000 + Int64(index))
        }
        let flows = engine.takeBatch(now: Self.start + 20_000_000).flows.map(\.state).sorted { $0.firstSeen < $1.firstSeen }
        #expect(flows.count == 5)
        #expect(flows[0].sni == nil, "the oldest flow's reading was given up: its opening stays unread")
        #expect(flows[0].clientTLS == nil)
        #expect(flows[4].sni == "host4.lab", "the newest flow is read")
        #expect(flows.allSatisfy { $0.packetCount == 4 }, "every packet is counted")
    }

    @Test("Under the budget every flow is read")
    func underBudget() {
        var engine = FlowEngine(configuration: FlowEngineConfiguration(clientNetworks: [IPNetwork("10.77.0.0/24")!]))
        for index in 0..<5 {
            let phone = Endpoint(address: IPAddress("10.77.0.\(10 + index)")!, port: 40_000)
            Self.feed(&engine, PacketBuilder.tcp(from: phone, to: Self.server, sequence: 100, flags: .syn), at: Self.start)
            Self.feed(&engine, PacketBuilder.tcp(from: phone, to: Self.server, sequence: 101, flags: .ack,
                                                 payload: Self.hello("host\(index).lab", size: 4000)), at: Self.start + 1)
        }
        #expect(engine.statistics.reassemblyGivenUp == 0)
        #expect(engine.takeBatch(now: Self.start + 2).flows.allSatisfy { $0.state.sni != nil })
    }
}
