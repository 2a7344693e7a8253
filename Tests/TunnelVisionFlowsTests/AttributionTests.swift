import PacketBuilding
import Testing
import TunnelVisionFlows
import TunnelVisionModel
import TunnelVisionWire

/// DNS attribution through the engine: answers reaching the phone name the flows that follow.
@Suite struct AttributionTests {
    static let phone = Endpoint(address: IPAddress("10.6.0.2")!, port: 40000)
    static let resolver = Endpoint(address: IPAddress("9.9.9.9")!, port: 53)
    static let address = IPAddress("192.0.2.10")!
    static let second: Int64 = 1_000_000_000
    static let start: Int64 = 1_700_000_000 * second

    static func answer(_ name: String, ttl: UInt32, id: UInt16, to receiver: IPAddress = phone.address) -> [UInt8] {
        let encoded: [UInt8] = name.split(separator: ".").flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) } + [0]
        var message: [UInt8] = []
        message.appendBigEndian(id)
        message += [0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0]
        message += encoded
        message += [0, 1, 0, 1]
        message += [0xC0, 0x0C, 0, 1, 0, 1]
        message.appendBigEndian(ttl)
        message += [0, 4]
        message += address.bytes
        let client = Endpoint(address: receiver, port: 40000 + id)
        return PacketBuilder.udp(from: resolver, to: client, payload: message)
    }

    static func nameOfFlow(after answers: [(String, UInt32, Int64)], connectingAt time: Int64) -> ResolvedName? {
        var engine = FlowEngine(configuration: FlowEngineConfiguration(clientNetworks: [IPNetwork("10.6.0.0/24")!]))
        for (index, (name, ttl, at)) in answers.enumerated() {
            answer(name, ttl: ttl, id: UInt16(index + 1)).withUnsafeBytes {
                engine.process(packet: $0, linkType: .raw, timestampNanoseconds: at)
            }
        }
        let syn = PacketBuilder.tcp(from: phone, to: Endpoint(address: address, port: 443), sequence: 1, flags: .syn)
        syn.withUnsafeBytes { engine.process(packet: $0, linkType: .raw, timestampNanoseconds: time) }
        return engine.takeBatch(now: time).flows.first { $0.state.key.proto == .tcp }?.state.resolvedName
    }

    @Test(arguments: [
        // The latest live name wins; the others follow, newest first.
        ([("a.example", UInt32(300), start), ("b.example", 300, start + second)], start + 2 * second,
         ResolvedName?.some(ResolvedName(name: "b.example", otherNames: ["a.example"]))),
        // Expired pairs name nothing (a TTL below 60 s lives 60 s).
        ([("a.example", 5, start)], start + 59 * second, ResolvedName(name: "a.example")),
        ([("a.example", 5, start)], start + 61 * second, nil),
        // Ties go to the smaller string.
        ([("z.example", 300, start), ("m.example", 300, start)], start + second, ResolvedName(name: "m.example", otherNames: ["z.example"])),
        // Names are case-folded; names that are not valid domain names are not stored.
        ([("WWW.Example.COM", 300, start)], start + second, ResolvedName(name: "www.example.com")),
        ([("bad name.example", 300, start)], start + second, nil),
        // At most four names per address: the oldest goes.
        ([("a.example", 300, start), ("b.example", 300, start + 1), ("c.example", 300, start + 2),
          ("d.example", 300, start + 3), ("e.example", 300, start + 4)], start + second,
         ResolvedName(name: "e.example", otherNames: ["d.example", "c.example", "b.example"])),
    ] as [([(String, UInt32, Int64)], Int64, ResolvedName?)])
    func namesTheFlowByLiveAnswers(answers: [(String, UInt32, Int64)], connectingAt: Int64, expected: ResolvedName?) {
        #expect(Self.nameOfFlow(after: answers, connectingAt: connectingAt) == expected)
    }

    @Test func answersLeavingThePhoneAreNotIngested() {
        // Here the resolver's address is the phone's: its answers go out, not in.
        var engine = FlowEngine(configuration: FlowEngineConfiguration(clientNetworks: [IPNetwork("9.9.9.9/32")!]))
        Self.answer("a.example", ttl: 300, id: 1).withUnsafeBytes {
            engine.process(packet: $0, linkType: .raw, timestampNanoseconds: Self.start)
        }
        #expect(engine.takeBatch(now: Self.start).dnsAnswers.isEmpty)
    }

    /// Two phones behind one gateway: a name reaches only the flows of the phone that received it.
    @Test func anAnswerNamesOnlyTheFlowsOfThePhoneThatReceivedIt() {
        let other = IPAddress("10.6.0.3")!
        var engine = FlowEngine(configuration: FlowEngineConfiguration(clientNetworks: [IPNetwork("10.6.0.0/24")!]))
        Self.answer("shared.example", ttl: 300, id: 1).withUnsafeBytes {
            engine.process(packet: $0, linkType: .raw, timestampNanoseconds: Self.start)
        }
        Self.answer("shared.example", ttl: 300, id: 2, to: other).withUnsafeBytes {
            engine.process(packet: $0, linkType: .raw, timestampNanoseconds: Self.start)
        }
        Self.answer("only-other.example", ttl: 300, id: 3, to: other).withUnsafeBytes {
            engine.process(packet: $0, linkType: .raw, timestampNanoseconds: Self.start + Self.second)
        }
        for client in [Self.phone.address, other] {
            let syn = PacketBuilder.tcp(
                from: Endpoint(address: client, port: 41000), to: Endpoint(address: Self.address, port: 443), sequence: 1, flags: .syn)
            syn.withUnsafeBytes { engine.process(packet: $0, linkType: .raw, timestampNanoseconds: Self.start + 2 * Self.second) }
        }
        let names = Dictionary(uniqueKeysWithValues: engine.takeBatch(now: Self.start + 2 * Self.second).flows
            .filter { $0.state.key.proto == .tcp }
            .map { ($0.client, $0.state.resolvedName) })
        #expect(names[Self.phone.address] == ResolvedName(name: "shared.example"))
        #expect(names[other] == ResolvedName(name: "only-other.example", otherNames: ["shared.example"]))
    }
}
