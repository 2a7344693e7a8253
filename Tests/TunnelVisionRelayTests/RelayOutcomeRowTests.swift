import Glibc
import Testing
import TunnelVisionModel
@testable import TunnelVisionRelay

/// The outcome table's rows that `RelayConnectionTests` leaves to this suite: alerts and ends
/// before the relay's answer, closes after an outcome, and the relay's own failures while it
/// answers and after the handshake. Each drives one connection over real sockets.
@Suite(.serialized) struct RelayOutcomeRowTests {
    typealias Rows = RelayConnectionTests

    /// The phone's ClientHello is held and the relay's server is dialled; its TLS has not answered.
    static func beforeTheAnswer(_ relay: RelayConnectionHarness) throws -> TestTLS {
        let phone = TestTLS(phone: relay.phone, serverName: RelayConnectionHarness.serverName)
        phone.handshake()
        try #require(relay.run(until: { relay.servers.last.map(Plain.hasBytes) == true }), "the relay dialled no server")
        return phone
    }

    /// The server's TLS answers from here on, as a server does.
    static func serving(_ relay: RelayConnectionHarness) throws -> () -> Void {
        let server = try #require(relay.serverTLS())
        return { server.handshake() }
    }

    /// Before the answer the phone has seen no certificate of ours: any alert it sends then,
    /// refusing or closing, is a closing alert and no refusal is remembered.
    @Test(arguments: [Rows.refusingAlert, Rows.closeNotify])
    func anAlertBeforeTheAnswerIsOnlyAClosingAlert(_ alert: [UInt8]) throws {
        let relay = try RelayConnectionHarness()
        _ = try Self.beforeTheAnswer(relay)
        Plain.write(relay.phone, alert)
        let serve = try Self.serving(relay)
        let report = try #require(relay.runToEnd(also: { serve(); Rows.serverClosesAtItsEnd(relay)() }))
        #expect(report.outcome == nil)
        #expect(report.event == .phoneClosingAlertDuringHandshake(alert: alert[6]))
        #expect(!relay.context.refusals.isRemembered(RelayConnectionHarness.serverName))
        // The relay answered once it had the server; the phone's alert was read with its hello.
        #expect(relay.observed.answered == 1)
    }

    @Test func aResetBeforeTheAnswerLeavesTheHandshakeWithoutAnOutcome() throws {
        let relay = try RelayConnectionHarness()
        _ = try Self.beforeTheAnswer(relay)
        relay.resetPhone()
        let report = try #require(relay.runToEnd(also: Rows.serverClosesAtItsEnd(relay)))
        #expect(report.outcome == nil)
        #expect(report.event == .phoneLeftDuringHandshake)
        #expect(relay.observed.answered == 0)
    }

    /// A FIN that arrives before the relay's answer is read with the phone's next bytes, after
    /// the relay's first flight went out: the relay is answering by then, and the phone left.
    @Test func aFINBeforeTheAnswerIsReadWhileAnswering() throws {
        let relay = try RelayConnectionHarness()
        _ = try Self.beforeTheAnswer(relay)
        shutdown(relay.phone, Int32(SHUT_WR))
        let serve = try Self.serving(relay)
        let report = try #require(relay.runToEnd(also: { serve(); Rows.serverClosesAtItsEnd(relay)() }))
        #expect(report.outcome == nil)
        #expect(report.event == .phoneLeftDuringHandshake)
        #expect(relay.servers.count == 1)
    }

    /// Our TLS server cannot answer a hello it shares no cipher suite with: nothing of ours
    /// reached the phone, so the relay takes back its announced answer and the held stream goes
    /// to a plain connection to the same destination.
    @Test func ourTLSServerFailingBeforeItsAnswerHandsTheHeldStreamOn() throws {
        let relay = try RelayConnectionHarness()
        let phone = TestTLS(phone: relay.phone, serverName: RelayConnectionHarness.serverName)
        phone.offerOnly("NULL-SHA256:@SECLEVEL=0")
        phone.handshake()
        try #require(relay.run(until: { relay.servers.last.map(Plain.hasBytes) == true }), "the relay dialled no server")
        let serve = try Self.serving(relay)
        var held: [UInt8] = []
        try #require(relay.run(until: { held.count > 5 }, also: {
            serve()
            if relay.servers.count == 2 { held += Plain.read(relay.servers[1]) ?? [] }
        }), "no second, plain connection got the held stream")
        #expect(held.first == 0x16)
        #expect(relay.observed.answered == 1 && relay.observed.rolledBack == 1)
        shutdown(relay.phone, Int32(SHUT_WR))
        let report = try #require(relay.runToEnd(also: Rows.serverClosesAtItsEnd(relay)))
        guard case .handedToPlainUpstream(let reason)? = report.event else {
            Issue.record("the held stream was not handed on: \(String(describing: report.event))")
            return
        }
        #expect(reason.hasPrefix("our TLS server could not answer the phone's ClientHello"))
        #expect(report.outcome == nil)
    }

    /// After the handshake a closing alert is a way of closing, never a refusal.
    @Test func aClosingAlertAfterTheHandshakeIsAClose() throws {
        let relay = try RelayConnectionHarness()
        let (phone, _) = try Rows.established(relay)
        phone.closeNotify()
        // The server closes once the relay passed the close on (its own close_notify).
        let report = try #require(relay.runToEnd(also: {
            if let server = relay.servers.last, server >= 0, Plain.hasBytes(server) { relay.closeServer() }
        }))
        #expect(report.outcome == nil)
        #expect(report.event == .phoneClosedAfterHandshake)
        #expect(!relay.context.refusals.isRemembered(RelayConnectionHarness.serverName))
    }

    /// Once the phone's data made the flow inspected, however the phone leaves is a plain close.
    @Test(arguments: [false, true])
    func thePhoneLeavingAfterAnOutcomeIsAClose(resets: Bool) throws {
        let relay = try RelayConnectionHarness()
        let (phone, server) = try Rows.established(relay)
        phone.write("ping")
        var atServer = ""
        try #require(relay.run(until: { atServer == "ping" }, also: { atServer += server.read() }))
        if resets { relay.resetPhone() } else { shutdown(relay.phone, Int32(SHUT_WR)) }
        let report = try #require(relay.runToEnd(also: Rows.serverClosesAtItsEnd(relay)))
        #expect(report.outcome == .inspected)
        #expect(report.event == .closed)
    }

    @Test func thePhoneNotFinishingItsHandshakeInTimeIsTheRelaysFailure() throws {
        let relay = try RelayConnectionHarness(limits: RelayLimits(holdSeconds: 2, connectSeconds: 2, handshakeSeconds: 1, idleSeconds: 5))
        _ = try Rows.answering(relay)
        let report = try #require(relay.runToEnd(also: Rows.serverClosesAtItsEnd(relay)))
        #expect(report.outcome == nil)
        #expect(report.event == .relayFailed(reason: "the phone did not complete the TLS handshake within 1 s"))
        #expect(relay.observed.rolledBack == 0)
    }

    @Test func theRelayStoppingAfterTheHandshakeIsItsFailure() throws {
        let relay = try RelayConnectionHarness()
        _ = try Rows.established(relay)
        relay.connection.abandon()
        let report = try #require(relay.observed.final)
        #expect(report.outcome == nil)
        #expect(report.event == .relayFailed(reason: "the relay stopped"))
        #expect(report.decision == .terminate(serverName: RelayConnectionHarness.serverName))
    }
}
