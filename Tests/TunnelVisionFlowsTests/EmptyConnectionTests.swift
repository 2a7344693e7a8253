import Foundation
import PacketBuilding
import Testing
import TunnelVisionFlows
import TunnelVisionModel
import TunnelVisionWire

/// A connection whose start was seen and that sent nothing is told from a stream picked
/// up mid-way, by what the engine records of its payload.
@Suite struct EmptyConnectionTests {
    typealias Rules = EngineRuleTests

    static func state(after packets: [[UInt8]]) throws -> FlowState {
        var run = Rules.Run()
        for (index, packet) in packets.enumerated() { run.feed(packet, at: Rules.start + Int64(index)) }
        _ = run.flush(at: Rules.start + 100)
        return try #require(run.flows.values.first)
    }

    @Test func synSynAckAndResetWithNoByteSentIsNothingSinceTheStart() throws {
        let state = try Self.state(after: [
            Rules.syn(),
            PacketBuilder.tcp(from: Rules.server, to: Rules.phone, sequence: 7, acknowledgement: 101, flags: [.syn, .ack]),
            PacketBuilder.tcp(from: Rules.phone, to: Rules.server, sequence: 101, flags: .rst),
        ])
        #expect(state.tcpPayload == .noneSinceStart)
        #expect(state.streamOpening == nil)
    }

    @Test func aByteFromEitherEndIsCarried() throws {
        let fromServer = try Self.state(after: [
            Rules.syn(),
            PacketBuilder.tcp(from: Rules.server, to: Rules.phone, sequence: 7, acknowledgement: 101, flags: [.syn, .ack]),
            PacketBuilder.tcp(from: Rules.server, to: Rules.phone, sequence: 8, flags: .ack, payload: Array("220 ready\r\n".utf8)),
        ])
        #expect(fromServer.tcpPayload == .carried)
        let fromPhone = try Self.state(after: [
            Rules.syn(), PacketBuilder.tcp(from: Rules.phone, to: Rules.server, sequence: 101, flags: .ack, payload: [0x16]),
        ])
        #expect(fromPhone.tcpPayload == .carried)
    }

    @Test func aStreamPickedUpMidWayWithoutPayloadSaysNothingOfItsStart() throws {
        let state = try Self.state(after: [PacketBuilder.tcp(from: Rules.phone, to: Rules.server, sequence: 500, flags: .ack)])
        #expect(state.tcpPayload == nil)
    }
}
