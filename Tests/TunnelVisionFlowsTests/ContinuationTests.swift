import Foundation
import PacketBuilding
import Testing
import TunnelVisionFlows
import TunnelVisionModel
import TunnelVisionWire

/// A TCP record that begins without a SYN continues a connection opened before it: after a
/// restart of the daemon, the tail of a download is marked so, and a record that began with its
/// SYN is not.
@Suite struct ContinuationTests {
    typealias Rules = EngineRuleTests

    static func tail(sequence: UInt32 = 90_000) -> [UInt8] {
        PacketBuilder.tcp(from: Rules.server, to: Rules.phone, sequence: sequence, flags: .ack, payload: Array(repeating: 0x17, count: 1200))
    }

    static func states(_ run: inout Rules.Run, at time: Int64) -> [FlowState] {
        _ = run.flush(at: time)
        return run.flows.sorted { $0.key < $1.key }.map(\.value)
    }

    @Test func theTailOfADownloadAtTheCapturesStartOpenedBeforeTheCapture() throws {
        var run = Rules.Run()
        run.feed(Self.tail(), at: Rules.start)
        run.feed(PacketBuilder.tcp(from: Rules.phone, to: Rules.server, sequence: 700, acknowledgement: 91_200, flags: .ack), at: Rules.start + 1)
        let state = try #require(Self.states(&run, at: Rules.start + 2).first)
        #expect(state.continuation == .openedBeforeCapture)
        // Its opening was not read, and nothing here pretends it was.
        #expect(state.streamOpening == nil)
        #expect(state.sni == nil && state.clientTLS == nil)
    }

    @Test func aRecordThatBeginsWithItsSYNOrSYNACKIsNoContinuation() throws {
        var run = Rules.Run()
        run.feed(Rules.syn(), at: Rules.start)
        let other = Endpoint(address: IPAddress("10.6.0.3")!, port: 40000)
        run.feed(PacketBuilder.tcp(from: Rules.server, to: other, sequence: 7, acknowledgement: 101, flags: [.syn, .ack]), at: Rules.start + 1)
        let states = Self.states(&run, at: Rules.start + 2)
        #expect(states.count == 2)
        #expect(states.allSatisfy { $0.continuation == nil })
    }

    @Test func aStreamPickedUpAfterTheIdleTimeoutContinuesAnEarlierRecord() throws {
        let timeout = 60 * Rules.second
        var run = Rules.Run(FlowEngineConfiguration(tcpIdleTimeoutNanoseconds: timeout))
        run.feed(Rules.syn(), at: Rules.start)
        // The connection idles past the timeout (its record ends), then goes on.
        run.feed(Self.tail(), at: Rules.start + 2 * timeout)
        let states = Self.states(&run, at: Rules.start + 2 * timeout + 1)
        #expect(states.map(\.continuation) == [nil, .openedBeforeRecord])
    }

    @Test func aClientHelloAfterARestartIsAContinuationThatStillCarriesItsName() throws {
        var run = Rules.Run()
        let hello = PacketBuilder.handshakeRecord(
            type: 1, body: PacketBuilder.clientHelloBody(extensions: [PacketBuilder.serverNameExtension("api.example.com")]))
        run.feed(PacketBuilder.tcp(from: Rules.phone, to: Rules.server, sequence: 101, flags: .ack, payload: hello), at: Rules.start)
        let state = try #require(Self.states(&run, at: Rules.start + 1).first)
        #expect(state.continuation == .openedBeforeCapture)
        #expect(state.sni == "api.example.com")
    }

    @Test func datagramsAreNeverContinuations() throws {
        var run = Rules.Run()
        run.feed(PacketBuilder.udp(from: Rules.phone, to: Rules.server, payload: [1, 2, 3]), at: Rules.start)
        #expect(try #require(Self.states(&run, at: Rules.start + 1).first).continuation == nil)
    }
}
