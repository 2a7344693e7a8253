import Foundation
import PacketBuilding
import Testing
import TunnelVisionFlows
import TunnelVisionModel
import TunnelVisionWire

/// The relay's messages on the phone leg's flow: the outcome, the upstream reading
/// held only while the termination owns the flow, the server side ignored while our TLS
/// server answers, the facts carried in the same batch as the flow.
@Suite struct RelayUpdateTests {
    static let phone = Endpoint(address: IPAddress("10.77.0.2")!, port: 50000)
    static let server = Endpoint(address: IPAddress("198.51.100.13")!, port: 443)
    static let key = FlowKey(proto: .tcp, phone, server)
    static let start: Int64 = 1_700_000_000 * 1_000_000_000
    static let upstream = TLSNegotiation(version: .tls13, cipherSuite: CipherSuite(0x1301), source: .upstreamConnection)

    /// A flow that has begun: the phone's SYN and the SYN-ACK.
    static func engineWithFlow() -> FlowEngine {
        var engine = FlowEngine()
        feed(&engine, PacketBuilder.tcp(from: phone, to: server, sequence: 100, flags: .syn), at: start)
        feed(&engine, PacketBuilder.tcp(from: server, to: phone, sequence: 900, acknowledgement: 101, flags: [.syn, .ack]), at: start + 1)
        let hello = PacketBuilder.handshakeRecord(
            type: 1, body: PacketBuilder.clientHelloBody(extensions: [PacketBuilder.serverNameExtension("tls13.lab")]))
        feed(&engine, PacketBuilder.tcp(from: phone, to: server, sequence: 101, acknowledgement: 901, flags: .ack, payload: hello), at: start + 1)
        return engine
    }

    /// `#expect` cannot call a mutating method inside itself.
    static func check(_ applied: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(applied, sourceLocation: sourceLocation)
    }

    static func feed(_ engine: inout FlowEngine, _ packet: [UInt8], at time: Int64) {
        packet.withUnsafeBytes { engine.process(packet: $0, linkType: .raw, timestampNanoseconds: time) }
    }

    /// A TLS 1.2 ServerHello from the server's end, as our own TLS server would send it.
    static func serverHello(at time: Int64, into engine: inout FlowEngine) {
        let hello = PacketBuilder.handshakeRecord(type: 2, body: PacketBuilder.serverHelloBody(cipherSuite: 0xC02F, extensions: []), recordVersion: 0x0303)
        feed(&engine, PacketBuilder.tcp(from: server, to: phone, sequence: 901, acknowledgement: 101, flags: .ack, payload: hello), at: time)
    }

    static func report(_ outcome: TLSInspectionStatus?, decision: RelayDecisionKind = .terminated, event: RelayEventKind? = nil) -> RelayFlowUpdate {
        .reported(
            RelayFacts(decision: decision, event: event, upstreamVerified: true, keyLog: ["CLIENT_RANDOM aa bb"]),
            outcome: outcome, upstream: upstream)
    }

    @Test func anInspectedOutcomeTakesTheUpstreamReadingAndReplacesTheCertificate() throws {
        var engine = Self.engineWithFlow()
        Self.check(engine.apply(.answering, to: Self.key))
        Self.serverHello(at: Self.start + 2, into: &engine)
        Self.check(engine.apply(Self.report(.inspected), to: Self.key))
        let batch = engine.takeBatch(now: Self.start + 3)
        let state = try #require(batch.flows.first?.state)
        #expect(state.tlsStatus == .inspected)
        #expect(state.serverTLS == .negotiated(Self.upstream))
        #expect(state.certificateVisibility == .replacedByInspection)
        #expect(batch.relayFacts.map(\.facts.keyLog) == [["CLIENT_RANDOM aa bb"]])
        #expect(batch.relayFacts.first?.flow == batch.flows.first?.handle)
    }

    @Test func ourServerHelloIsNeverTheFlowsReadingEvenWhenReadBeforeTheFlag() throws {
        var engine = Self.engineWithFlow()
        Self.serverHello(at: Self.start + 2, into: &engine)
        Self.check(engine.apply(.answering, to: Self.key))
        // A later packet of the phone must not bring the passive reading back.
        Self.feed(&engine, PacketBuilder.tcp(from: Self.phone, to: Self.server, sequence: 101, flags: .ack), at: Self.start + 3)
        Self.check(engine.apply(Self.report(nil, event: .phoneClosedAfterHandshake), to: Self.key))
        let state = try #require(engine.takeBatch(now: Self.start + 4).flows.first?.state)
        #expect(state.tlsStatus == .encrypted)
        #expect(state.serverTLS?.negotiation?.source == .upstreamConnection)
    }

    @Test func aRollbackGivesTheServerSideBackToThePassiveReader() throws {
        var engine = Self.engineWithFlow()
        Self.check(engine.apply(.answering, to: Self.key))
        Self.check(engine.apply(.rolledBack, to: Self.key))
        Self.serverHello(at: Self.start + 2, into: &engine)
        // Handed to a plain upstream: the report carries no upstream reading of its own.
        Self.check(engine.apply(.reported(
            RelayFacts(decision: .terminated, event: .handedToPlainUpstream), outcome: nil, upstream: nil), to: Self.key))
        let state = try #require(engine.takeBatch(now: Self.start + 3).flows.first?.state)
        #expect(state.serverTLS?.negotiation?.source == .serverHello)
        #expect(state.serverTLS?.negotiation?.cipherSuite == CipherSuite(0xC02F))
    }

    @Test func aSpliceNeverTakesAnUpstreamReading() throws {
        var engine = Self.engineWithFlow()
        Self.serverHello(at: Self.start + 2, into: &engine)
        Self.check(engine.apply(Self.report(.notInspectable, decision: .spliced(.hostRemembered)), to: Self.key))
        let state = try #require(engine.takeBatch(now: Self.start + 3).flows.first?.state)
        #expect(state.tlsStatus == .notInspectable)
        #expect(state.serverTLS?.negotiation?.source == .serverHello)
    }

    @Test func anUpdateForAFlowNotYetSeenIsNotApplied() {
        var engine = FlowEngine()
        Self.check(!engine.apply(.answering, to: Self.key))
        #expect(engine.takeBatch(now: Self.start).isEmpty)
    }
}
