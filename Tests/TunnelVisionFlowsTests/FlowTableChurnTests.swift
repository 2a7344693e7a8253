import PacketBuilding
import Testing
import TunnelVisionFlows
import TunnelVisionModel
import TunnelVisionWire

/// The flow table under churn: evictions move flows within it and its index grows and shrinks,
/// yet every live flow is found again by its 5-tuple and only changed flows are written.
@Suite struct FlowTableChurnTests {
    static let server = Endpoint(address: IPAddress("93.184.216.34")!, port: 53)
    static let start: Int64 = 1_700_000_000 * 1_000_000_000

    static func datagram(_ index: Int) -> [UInt8] {
        let phone = Endpoint(address: IPAddress(v4: 0x0A06_0000 | UInt32(index >> 12)), port: UInt16(1024 + index & 0xFFF))
        return PacketBuilder.udp(from: phone, to: server, payload: [0x01])
    }

    static func feed(_ engine: inout FlowEngine, _ index: Int, at time: Int64) {
        datagram(index).withUnsafeBytes { engine.process(packet: $0, linkType: .raw, timestampNanoseconds: time) }
    }

    @Test func everyLiveFlowIsFoundAgainAfterEvictionsMovedThem() {
        var engine = FlowEngine(configuration: FlowEngineConfiguration(flowCapacity: 3000))
        for index in 0..<5000 { Self.feed(&engine, index, at: Self.start + Int64(index)) }
        let first = engine.takeBatch(now: Self.start + 5000)
        #expect(first.flows.count == 5000)
        #expect(engine.liveFlowCount == 3000)
        #expect(engine.statistics.flowsEvicted == 2000)
        let handles = Dictionary(uniqueKeysWithValues: first.flows.map { ($0.state.key, $0.handle) })

        // The newest 3000 stayed: a second datagram of each joins its flow, in whatever slot it now is.
        for index in (2000..<5000).reversed() { Self.feed(&engine, index, at: Self.start + 10_000 + Int64(index)) }
        let second = engine.takeBatch(now: Self.start + 20_000)
        #expect(second.flows.count == 3000)
        #expect(second.flows.allSatisfy { handles[$0.state.key] == $0.handle && $0.state.packetCount == 2 })
        #expect(engine.statistics.flowsEvicted == 2000)
        #expect(engine.liveFlowCount == 3000)
    }

    @Test func aBatchCarriesOnlyTheFlowsThatChangedSinceTheLast() {
        var engine = FlowEngine(configuration: FlowEngineConfiguration(flowCapacity: 100))
        for index in 0..<50 { Self.feed(&engine, index, at: Self.start + Int64(index)) }
        _ = engine.takeBatch(now: Self.start + 50)
        Self.feed(&engine, 7, at: Self.start + 60)
        Self.feed(&engine, 42, at: Self.start + 61)
        let batch = engine.takeBatch(now: Self.start + 62)
        #expect(batch.flows.map(\.state.key.endpointA.port).sorted() == [1024 + 7, 1024 + 42].sorted())
        #expect(engine.takeBatch(now: Self.start + 63).flows.isEmpty)
    }
}
