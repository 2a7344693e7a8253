import Glibc
import Testing
import TunnelVisionModel
@testable import TunnelVisionRelay

/// One relay connection driven over real sockets, with real TLS on every leg, through the rows of
/// the outcome table (`docs/ARCHITECTURE.md` § The relay): what the phone or the server does, and
/// when, decides what the flow keeps.
@Suite(.serialized) struct RelayConnectionTests {
    /// A TLS 1.2 fatal alert, unknown_ca (48): the phone refuses the certificate it was shown.
    static let refusingAlert: [UInt8] = [0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 48]
    /// A TLS 1.2 warning close_notify (0).
    static let closeNotify: [UInt8] = [0x15, 0x03, 0x03, 0x00, 0x02, 0x01, 0x00]

    /// The phone's ClientHello has reached the relay, the relay's its server, and the relay's
    /// answer the phone, whose handshake is not done: the column "answering".
    static func answering(_ relay: RelayConnectionHarness) throws -> (phone: TestTLS, server: TestTLS) {
        let phone = TestTLS(phone: relay.phone, serverName: RelayConnectionHarness.serverName)
        phone.handshake()
        try #require(relay.run(until: { relay.servers.last.map(Plain.hasBytes) == true }), "the relay dialled no server")
        let server = try #require(relay.serverTLS())
        try #require(relay.run(until: { relay.observed.answered == 1 && Plain.hasBytes(relay.phone) }, also: { server.handshake() }),
                     "the relay never answered the phone")
        return (phone, server)
    }

    /// Both handshakes done: the column "established".
    static func established(_ relay: RelayConnectionHarness) throws -> (phone: TestTLS, server: TestTLS) {
        let (phone, server) = try answering(relay)
        var done = false
        try #require(relay.run(until: { done }, also: { done = done || phone.handshake() }), "the phone's handshake never ended")
        // The relay reads the phone's Finished before its own; one more turn settles its phase.
        relay.turn()
        return (phone, server)
    }

    /// Closes the server's end once the relay ended its side, as a server does.
    static func serverClosesAtItsEnd(_ relay: RelayConnectionHarness) -> () -> Void {
        { if let server = relay.servers.last, Plain.read(server) == nil { relay.closeServer() } }
    }

    @Test func bytesThatAreNotTLSPassThroughUntouchedBothWays() throws {
        let relay = try RelayConnectionHarness()
        let request = Array("GET / HTTP/1.1\r\nHost: api.test.example\r\n\r\n".utf8)
        Plain.write(relay.phone, request)
        var received: [UInt8] = []
        try #require(relay.run(until: { received.count >= request.count }, also: {
            if let server = relay.servers.last { received += Plain.read(server) ?? [] }
        }))
        #expect(received == request)
        Plain.write(relay.servers[0], Array("HTTP/1.1 204 No Content\r\n\r\n".utf8))
        var answer: [UInt8] = []
        relay.run(until: { answer.count >= 27 }, also: { answer += Plain.read(relay.phone) ?? [] })
        #expect(String(decoding: answer, as: UTF8.self) == "HTTP/1.1 204 No Content\r\n\r\n")
        shutdown(relay.phone, Int32(SHUT_WR))
        let report = try #require(relay.runToEnd(also: Self.serverClosesAtItsEnd(relay)))
        #expect(report.decision == .splice(.notTLS))
        #expect(report.event == nil && report.outcome == nil)
        // The held first bytes are replayed to the server, not counted: only what follows is.
        #expect(report.bytesToPhone == 27)
        #expect(relay.observed.answered == 0)
    }

    @Test func aRefusingAlertWhileAnsweringIsNotInspectableAndTheHostIsRemembered() throws {
        let relay = try RelayConnectionHarness()
        _ = try Self.answering(relay)
        Plain.write(relay.phone, Self.refusingAlert)
        let report = try #require(relay.runToEnd(also: Self.serverClosesAtItsEnd(relay)))
        #expect(report.outcome == .notInspectable(alert: 48))
        #expect(report.verdict == .refused(alert: 48))
        #expect(report.presentation == .installedAuthority)
        #expect(relay.context.refusals.isRemembered(RelayConnectionHarness.serverName))
    }

    @Test func aClosingAlertWhileAnsweringIsNoRefusal() throws {
        let relay = try RelayConnectionHarness()
        _ = try Self.answering(relay)
        Plain.write(relay.phone, Self.closeNotify)
        let report = try #require(relay.runToEnd(also: Self.serverClosesAtItsEnd(relay)))
        #expect(report.outcome == nil)
        #expect(report.event == .phoneClosingAlertDuringHandshake(alert: 0))
        #expect(!relay.context.refusals.isRemembered(RelayConnectionHarness.serverName))
    }

    @Test func applicationDataAfterTheHandshakeIsInspectedAndReachesTheServer() throws {
        let relay = try RelayConnectionHarness()
        let (phone, server) = try Self.established(relay)
        phone.write("ping")
        var atServer = ""
        try #require(relay.run(until: { atServer == "ping" }, also: { atServer += server.read() }))
        #expect(relay.observed.reports.first { !$0.isFinal }?.outcome == .inspected)
        server.write("pong")
        var atPhone = ""
        try #require(relay.run(until: { atPhone == "pong" }, also: { atPhone += phone.read() }))
        relay.closeServer()
        let report = try #require(relay.runToEnd())
        #expect(report.outcome == .inspected)
        #expect(report.event == .closed)
        #expect(report.bytesFromPhone == 4 && report.bytesToPhone == 4)
        #expect(report.keyLog.isEmpty == false)
    }

    struct Leaving: Sendable, CustomTestStringConvertible {
        let afterHandshake: Bool
        let resets: Bool
        let event: RelayEvent
        var testDescription: String { "\(resets ? "a reset" : "a FIN") \(afterHandshake ? "after" : "during") the handshake" }
    }

    /// A phone leaving without an alert is no outcome: during the handshake it has other causes,
    /// after it, it is what a pin checked after the handshake leaves behind.
    @Test(arguments: [
        Leaving(afterHandshake: false, resets: false, event: .phoneLeftDuringHandshake),
        Leaving(afterHandshake: false, resets: true, event: .phoneLeftDuringHandshake),
        Leaving(afterHandshake: true, resets: false, event: .phoneClosedAfterHandshake),
        Leaving(afterHandshake: true, resets: true, event: .phoneResetAfterHandshake),
    ])
    func aPhoneLeavingWithoutAnAlertLeavesOnlyAnEvent(_ row: Leaving) throws {
        let relay = try RelayConnectionHarness()
        _ = try row.afterHandshake ? Self.established(relay) : Self.answering(relay)
        if row.resets { relay.resetPhone() } else { shutdown(relay.phone, Int32(SHUT_WR)) }
        let report = try #require(relay.runToEnd(also: Self.serverClosesAtItsEnd(relay)))
        #expect(report.outcome == nil)
        #expect(report.event == row.event)
        #expect(report.verdict == (row.afterHandshake ? .closedAfterHandshake : .closedDuringHandshake))
    }

    @Test func theServerClosingAfterTheHandshakeBeforeThePhonesDataIsNoOutcome() throws {
        let relay = try RelayConnectionHarness()
        _ = try Self.established(relay)
        relay.closeServer()
        let report = try #require(relay.runToEnd())
        #expect(report.outcome == nil)
        #expect(report.event == .serverClosedBeforePhoneData)
    }

    @Test func theServerClosingWhileAnsweringIsTheRelaysFailure() throws {
        let relay = try RelayConnectionHarness(limits: RelayLimits(holdSeconds: 2, connectSeconds: 2, handshakeSeconds: 0.5, idleSeconds: 5))
        _ = try Self.answering(relay)
        relay.closeServer()
        let report = try #require(relay.runToEnd())
        #expect(report.outcome == nil)
        #expect(report.event?.kind == .relayFailed)
    }

    /// Before the relay's first byte reached the phone nothing is lost: the phone's held bytes
    /// go to a new plain connection to the same destination, and the phone's FIN after them.
    @Test(arguments: [false, true])
    func aFailureBeforeTheAnswerHandsTheHeldStreamToAPlainUpstream(serverSpeaksGarbage: Bool) throws {
        let relay = try RelayConnectionHarness()
        let phone = TestTLS(phone: relay.phone, serverName: RelayConnectionHarness.serverName)
        phone.handshake()
        try #require(relay.run(until: { relay.servers.last.map(Plain.hasBytes) == true }))
        if serverSpeaksGarbage {
            Plain.write(relay.servers[0], Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8))
        } else {
            relay.closeServer()
        }
        var held: [UInt8] = []
        try #require(relay.run(until: { held.count > 5 }, also: {
            if relay.servers.count == 2 { held += Plain.read(relay.servers[1]) ?? [] }
        }), "no second, plain connection got the held stream")
        // The phone's own ClientHello, with its server name, not the relay's.
        #expect(held.first == 0x16)
        #expect(String(decoding: held, as: UTF8.self).contains(RelayConnectionHarness.serverName))
        shutdown(relay.phone, Int32(SHUT_WR))
        let report = try #require(relay.runToEnd(also: Self.serverClosesAtItsEnd(relay)))
        #expect(report.event?.kind == .handedToPlainUpstream)
        #expect(report.outcome == nil)
        #expect(relay.observed.answered == 0)
    }
}
