import Foundation
import PacketBuilding
import Testing
import TunnelVisionFlows
import TunnelVisionModel
import TunnelVisionWire

/// The engine's rules on packets composed for the purpose: flow boundaries, direction, status,
/// bounds, batches.
@Suite struct EngineRuleTests {
    static let phone = Endpoint(address: IPAddress("10.6.0.2")!, port: 50000)
    static let server = Endpoint(address: IPAddress("93.184.216.34")!, port: 443)
    static let second: Int64 = 1_000_000_000
    static let start: Int64 = 1_700_000_000 * second

    struct Run {
        var engine: FlowEngine
        var upserts: [FlowUpsert] = []

        init(_ configuration: FlowEngineConfiguration = FlowEngineConfiguration()) {
            engine = FlowEngine(configuration: configuration)
        }

        mutating func feed(_ packet: [UInt8], at time: Int64) {
            packet.withUnsafeBytes { engine.process(packet: $0, linkType: .raw, timestampNanoseconds: time) }
        }

        mutating func flush(at time: Int64) -> HistoryBatch {
            let batch = engine.takeBatch(now: time)
            upserts += batch.flows
            return batch
        }

        /// The last state of every flow, by handle.
        var flows: [FlowHandle: FlowState] {
            upserts.reduce(into: [:]) { $0[$1.handle] = $1.state }
        }
    }

    static func syn(_ from: Endpoint = phone, _ to: Endpoint = server, sequence: UInt32 = 100) -> [UInt8] {
        PacketBuilder.tcp(from: from, to: to, sequence: sequence, flags: .syn)
    }

    @Test(arguments: [TCPFlags.rst, [.fin, .ack]])
    func aSYNAfterTheConnectionClosedStartsANewFlow(closing: TCPFlags) {
        var run = Run()
        run.feed(Self.syn(), at: Self.start)
        run.feed(PacketBuilder.tcp(from: Self.phone, to: Self.server, sequence: 101, flags: closing), at: Self.start + 1)
        if closing.contains(.fin) {
            run.feed(PacketBuilder.tcp(from: Self.server, to: Self.phone, sequence: 900, flags: closing), at: Self.start + 2)
        }
        run.feed(Self.syn(sequence: 5000), at: Self.start + 3)
        _ = run.flush(at: Self.start + 4)
        #expect(run.flows.count == 2)
    }

    @Test func aRetransmittedSYNOfALiveConnectionStaysInItsFlow() {
        var run = Run()
        run.feed(Self.syn(), at: Self.start)
        run.feed(PacketBuilder.tcp(from: Self.phone, to: Self.server, sequence: 101, flags: .fin), at: Self.start + 1)
        run.feed(Self.syn(), at: Self.start + 2)
        _ = run.flush(at: Self.start + 3)
        #expect(run.flows.count == 1)
        #expect(run.flows.values.first?.packetCount == 3)
    }

    @Test(arguments: [
        (TransportProtocol.udp, Int64(121), 2),
        (.udp, 119, 1),
        (.tcp, 14 * 60, 1),
        (.tcp, 15 * 60 + 1, 2),
    ])
    func idleFlowsExpire(proto: TransportProtocol, gapSeconds: Int64, flowCount: Int) {
        var run = Run()
        let packet = proto == .udp
            ? PacketBuilder.udp(from: Self.phone, to: Self.server, payload: [1])
            : PacketBuilder.tcp(from: Self.phone, to: Self.server, sequence: 1, flags: .ack)
        run.feed(packet, at: Self.start)
        run.feed(packet, at: Self.start + gapSeconds * Self.second)
        _ = run.flush(at: Self.start + gapSeconds * Self.second)
        #expect(run.flows.count == flowCount)
    }

    @Test func takeBatchExpiresIdleFlowsByTheInstantItIsGiven() {
        var run = Run()
        run.feed(PacketBuilder.udp(from: Self.phone, to: Self.server, payload: [1]), at: Self.start)
        #expect(run.flush(at: Self.start).flows.count == 1)
        #expect(run.engine.liveFlowCount == 1)
        // Expired by the batch's instant; written already, unchanged since, so not written again.
        let later = run.flush(at: Self.start + 121 * Self.second)
        #expect(run.engine.liveFlowCount == 0)
        #expect(run.engine.statistics.flowsExpired == 1)
        #expect(later.flows.isEmpty)
    }

    @Test func beyondItsCapacityTheLeastRecentlySeenFlowIsFlushedAndForgotten() {
        var run = Run(FlowEngineConfiguration(flowCapacity: 2))
        for (index, port) in [UInt16(1000), 1001, 1002].enumerated() {
            let phone = Endpoint(address: Self.phone.address, port: port)
            run.feed(PacketBuilder.udp(from: phone, to: Self.server, payload: [1]), at: Self.start + Int64(index))
        }
        let batch = run.flush(at: Self.start + 10)
        #expect(run.engine.liveFlowCount == 2)
        #expect(run.engine.statistics.flowsEvicted == 1)
        #expect(batch.flows.count == 3)
        #expect(Set(batch.flows.map { $0.state.key.endpointA.port == 1000 || $0.state.key.endpointB.port == 1000 }) == [true, false])
    }

    @Test func touchingAFlowKeepsItFromEviction() {
        var run = Run(FlowEngineConfiguration(flowCapacity: 2))
        let first = Endpoint(address: Self.phone.address, port: 1000)
        run.feed(PacketBuilder.udp(from: first, to: Self.server, payload: [1]), at: Self.start)
        run.feed(PacketBuilder.udp(from: Endpoint(address: Self.phone.address, port: 1001), to: Self.server, payload: [1]), at: Self.start + 1)
        run.feed(PacketBuilder.udp(from: first, to: Self.server, payload: [1]), at: Self.start + 2)
        run.feed(PacketBuilder.udp(from: Endpoint(address: Self.phone.address, port: 1002), to: Self.server, payload: [1]), at: Self.start + 3)
        _ = run.flush(at: Self.start + 4)
        let firstFlow = run.flows.values.first { $0.key.endpointA == first || $0.key.endpointB == first }
        #expect(firstFlow?.packetCount == 2)
        #expect(run.engine.liveFlowCount == 2)
    }

    @Test func theConfiguredClientNetworksDecideTheDirection() throws {
        var run = Run(FlowEngineConfiguration(clientNetworks: [IPNetwork("10.6.0.0/24")!]))
        // The server's packet comes first; still the phone's end is the one inside 10.6.0.0/24.
        run.feed(PacketBuilder.udp(from: Self.server, to: Self.phone, payload: [1, 2, 3]), at: Self.start)
        run.feed(PacketBuilder.udp(from: Self.phone, to: Self.server, payload: [1]), at: Self.start + 1)
        let batch = run.flush(at: Self.start + 2)
        let flow = try #require(batch.flows.first?.state)
        #expect(flow.bytesIn == 31)
        #expect(flow.bytesOut == 29)
        #expect(batch.packets.map(\.direction) == [.inbound, .outbound])
    }

    @Test func offlineTheInitiatorIsThePhone() throws {
        var run = Run()
        run.feed(Self.syn(), at: Self.start)
        run.feed(PacketBuilder.tcp(from: Self.server, to: Self.phone, sequence: 7, acknowledgement: 101, flags: [.syn, .ack]), at: Self.start + 1)
        let batch = run.flush(at: Self.start + 2)
        #expect(batch.packets.map(\.direction) == [.outbound, .inbound])
        #expect(batch.flows.first?.state.tlsStatus == .encrypted)
    }

    @Test(arguments: [
        (TransportProtocol.tcp, UInt16(443), TLSInspectionStatus.encrypted),
        (.tcp, 80, .plaintext),
        (.udp, 443, .plaintext),
        (.tcp, 8443, .plaintext),
    ])
    func statusIsBornFromTheRemotePort(proto: TransportProtocol, port: UInt16, status: TLSInspectionStatus) {
        var run = Run()
        let server = Endpoint(address: Self.server.address, port: port)
        let packet = proto == .tcp ? Self.syn(Self.phone, server) : PacketBuilder.udp(from: Self.phone, to: server, payload: [0])
        run.feed(packet, at: Self.start)
        #expect(run.flush(at: Self.start).flows.first?.state.tlsStatus == status)
    }

    static func hello(_ name: String) -> [UInt8] {
        PacketBuilder.handshakeRecord(type: 1, body: PacketBuilder.clientHelloBody(extensions: [PacketBuilder.serverNameExtension(name)]))
    }

    @Test func aClientHelloSplitAcrossSegmentsArrivingOutOfOrderIsRead() {
        var run = Run()
        let hello = Self.hello("reordered.example")
        run.feed(Self.syn(), at: Self.start)
        run.feed(PacketBuilder.tcp(from: Self.phone, to: Self.server, sequence: 101 + 40, flags: .ack, payload: Array(hello.dropFirst(40))), at: Self.start + 1)
        run.feed(PacketBuilder.tcp(from: Self.phone, to: Self.server, sequence: 101, flags: .ack, payload: Array(hello.prefix(50))), at: Self.start + 2)
        let flow = run.flush(at: Self.start + 3).flows.first?.state
        #expect(flow?.sni == "reordered.example")
        #expect(flow?.streamOpening == .tlsHandshake)
    }

    /// An application record is early data only when it crossed before any byte of the
    /// server's answer; after it, the same record is the client's Finished.
    @Test(arguments: [true, false])
    func earlyDataIsSentOnlyWhenItPrecedesTheServersAnswer(beforeTheAnswer: Bool) {
        var run = Run()
        let hello = PacketBuilder.handshakeRecord(type: 1, body: PacketBuilder.clientHelloBody(extensions: [
            PacketBuilder.serverNameExtension("early.example"), (42, []),
        ]))
        let application: [UInt8] = [23, 3, 3, 0, 3, 9, 9, 9]
        let serverHello = PacketBuilder.handshakeRecord(type: 2, body: PacketBuilder.serverHelloBody(
            cipherSuite: 0x1301, extensions: [(43, [3, 4]), (41, [0, 0])]))
        run.feed(Self.syn(), at: Self.start)
        run.feed(PacketBuilder.tcp(from: Self.server, to: Self.phone, sequence: 700, acknowledgement: 101, flags: [.syn, .ack]), at: Self.start + 1)
        run.feed(PacketBuilder.tcp(from: Self.phone, to: Self.server, sequence: 101, flags: .ack, payload: hello), at: Self.start + 2)
        let late = PacketBuilder.tcp(from: Self.phone, to: Self.server, sequence: 101 + UInt32(hello.count), flags: .ack, payload: application)
        if beforeTheAnswer { run.feed(late, at: Self.start + 3) }
        run.feed(PacketBuilder.tcp(from: Self.server, to: Self.phone, sequence: 701, flags: .ack, payload: serverHello), at: Self.start + 4)
        if !beforeTheAnswer { run.feed(late, at: Self.start + 5) }
        let flow = run.flush(at: Self.start + 6).flows.last?.state
        #expect(flow?.earlyData == EarlyDataReading(wasSent: beforeTheAnswer, serverAnswer: .notVisible))
    }

    /// On UDP 443 a long header is taken for QUIC as it stands only in a published
    /// version family; other bytes that set the long-header bits are no QUIC reading.
    @Test(arguments: [
        (UInt32(0x5130_3436), true), (0xFF00_001D, true), (0x1A2A_3A4A, true), (0xFACE_B002, true), (0x0000_0001, true),
        (0x1001_0000, false), (0xB2A1_0200, false),
    ])
    func aLongHeaderOn443IsQUICOnlyInAPublishedFamily(version: UInt32, isQUIC: Bool) {
        var run = Run()
        var datagram: [UInt8] = [0xC0]
        datagram.appendBigEndian(version)
        datagram += [4, 1, 2, 3, 4, 0] + [UInt8](repeating: 0, count: 40)
        let udpServer = Endpoint(address: Self.server.address, port: 443)
        run.feed(PacketBuilder.udp(from: Self.phone, to: udpServer, payload: datagram), at: Self.start)
        let flow = run.flush(at: Self.start + 1).flows.first?.state
        #expect(flow?.quic == (isQUIC ? QUICReading(version: QUICVersion(version), end: .client) : nil))
    }

    /// Where only the server's direction was captured, a ServerHello names itself: its
    /// answer is read (SYN-ACK seen or not); the phone's offer and opening stay unread.
    @Test(arguments: [true, false])
    func aServerHelloIsReadWhenThePhonesBytesWentUncaptured(withSYNACK: Bool) {
        var run = Run(FlowEngineConfiguration(clientNetworks: [IPNetwork("10.6.0.0/16")!]))
        let serverHello = PacketBuilder.handshakeRecord(type: 2, body: PacketBuilder.serverHelloBody(cipherSuite: 0xC02F, extensions: []),
                                                        recordVersion: 0x0303)
        if withSYNACK {
            run.feed(PacketBuilder.tcp(from: Self.server, to: Self.phone, sequence: 700, acknowledgement: 101, flags: [.syn, .ack]), at: Self.start)
        }
        run.feed(PacketBuilder.tcp(from: Self.server, to: Self.phone, sequence: 701, acknowledgement: 281, flags: .ack, payload: serverHello), at: Self.start + 1)
        let flow = run.flush(at: Self.start + 2).flows.last?.state
        #expect(flow?.serverTLS == .negotiated(TLSNegotiation(version: .tls12, cipherSuite: CipherSuite(0xC02F))))
        #expect(flow?.clientTLS == nil)
        #expect(flow?.streamOpening == nil)
    }

    @Test func aServerFirstStreamThatIsNotAServerHelloIsNotRead() {
        var run = Run(FlowEngineConfiguration(clientNetworks: [IPNetwork("10.6.0.0/16")!]))
        run.feed(PacketBuilder.tcp(from: Self.server, to: Self.phone, sequence: 700, acknowledgement: 101, flags: [.syn, .ack]), at: Self.start)
        run.feed(PacketBuilder.tcp(from: Self.server, to: Self.phone, sequence: 701, flags: .ack, payload: Array("220 mail ready\r\n".utf8)), at: Self.start + 1)
        let flow = run.flush(at: Self.start + 2).flows.last?.state
        #expect(flow?.serverTLS == nil)
    }

    /// A ClientHello record names itself, SYN or not; the opening stays unproven.
    @Test func withoutTheStreamsStartAClientHelloIsReadButNotAsTheOpening() {
        var run = Run()
        run.feed(PacketBuilder.tcp(from: Self.phone, to: Self.server, sequence: 101, flags: .ack, payload: Self.hello("midway.example")), at: Self.start)
        let flow = run.flush(at: Self.start + 1).flows.first?.state
        #expect(flow?.streamOpening == nil)
        #expect(flow?.sni == "midway.example")
    }

    @Test func withoutTheStreamsStartOnlyTheFirstPayloadIsLookedAt() {
        var run = Run()
        run.feed(PacketBuilder.tcp(from: Self.phone, to: Self.server, sequence: 101, flags: .ack, payload: Array("data".utf8)), at: Self.start)
        run.feed(PacketBuilder.tcp(from: Self.phone, to: Self.server, sequence: 105, flags: .ack, payload: Self.hello("inside.example")),
                 at: Self.start + 1)
        let flow = run.flush(at: Self.start + 2).flows.first?.state
        #expect(flow?.sni == nil)
        #expect(flow?.streamOpening == nil)
    }

    @Test func assignedRowsAreCarriedByLaterUpserts() throws {
        var run = Run()
        run.feed(Self.syn(), at: Self.start)
        let batch = run.flush(at: Self.start)
        let first = try #require(batch.flows.first)
        #expect(first.rowID == nil)
        run.engine.assign(rows: [first.handle: 42], of: batch)
        run.feed(PacketBuilder.tcp(from: Self.phone, to: Self.server, sequence: 101, flags: .ack), at: Self.start + 1)
        let second = try #require(run.flush(at: Self.start + 1).flows.first)
        #expect(second.handle == first.handle)
        #expect(second.rowID == 42)
    }

    @Test func anUnchangedFlowIsNotWrittenAgain() {
        var run = Run()
        run.feed(Self.syn(), at: Self.start)
        _ = run.flush(at: Self.start)
        #expect(run.flush(at: Self.start + 1).isEmpty)
    }

    @Test func laterFragmentsCountForTheirFirstFragmentsFlow() {
        var run = Run()
        var first = PacketBuilder.udp(from: Self.phone, to: Self.server, payload: [UInt8](repeating: 1, count: 16))
        first[4] = 0x12; first[5] = 0x34; first[6] = 0x20  // identification 0x1234, more fragments
        var later = PacketBuilder.ip(from: Self.phone.address, to: Self.server.address, proto: .udp, payload: [UInt8](repeating: 2, count: 16))
        later[4] = 0x12; later[5] = 0x34; later[6] = 0x00; later[7] = 0x03  // offset 24 bytes, last
        run.feed(first, at: Self.start)
        run.feed(later, at: Self.start + 1)
        let flows = run.flush(at: Self.start + 2).flows
        #expect(flows.count == 1)
        #expect(flows.first?.state.packetCount == 2)
    }

    @Test func undecodableFramesAreCountedNotFlowed() {
        var run = Run()
        run.feed([0x00, 0x01, 0x02], at: Self.start)
        #expect(run.flush(at: Self.start).isEmpty)
        #expect(run.engine.statistics.undecodable == 1)
    }
}

@Suite struct EngineFlushTests {
    @Test func aFlowThatEndsUnchangedSinceItsLastBatchIsNotWrittenAgain() {
        var engine = FlowEngine(configuration: FlowEngineConfiguration(flowCapacity: 1))
        let phone = EngineRuleTests.phone, start = EngineRuleTests.start
        let other = Endpoint(address: phone.address, port: 50001)
        PacketBuilder.udp(from: phone, to: EngineRuleTests.server, payload: [1]).withUnsafeBytes {
            engine.process(packet: $0, linkType: .raw, timestampNanoseconds: start)
        }
        #expect(engine.takeBatch(now: start).flows.count == 1)
        // A second flow evicts the first, which has not changed since it was written.
        PacketBuilder.udp(from: other, to: EngineRuleTests.server, payload: [1]).withUnsafeBytes {
            engine.process(packet: $0, linkType: .raw, timestampNanoseconds: start + 1)
        }
        let batch = engine.takeBatch(now: start + 1)
        #expect(batch.flows.map { $0.state.key.endpointA == other || $0.state.key.endpointB == other } == [true])
        #expect(engine.statistics.flowsEvicted == 1)
    }
}
