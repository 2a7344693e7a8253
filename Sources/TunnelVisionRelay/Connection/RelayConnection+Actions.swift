import Glibc
import TunnelVisionModel
import TunnelVisionWire

/// The shell's side of the machine: each action done with the sockets, the TLS sessions, the
/// report and the observer. No action chooses; the next input says what came of it.
extension RelayConnection {
    func perform(_ action: RelayAction) {
        switch action {
        case .recordDecision(let decision): record(decision)
        case .keepDecision(let decision): report.decision = decision
        case .keepEvent(let event): report.event = event
        case .recordUpstream: recordUpstream()
        case .recordHandshakeCompleted: report.instants.handshakeCompleted = MonotonicClock.wallNanoseconds()
        case .settle(let settled): settle(settled)
        case .rememberRefusal(let alert):
            if let name = report.serverName { context.refusals.remember(name, alert: alert) }
        case .hold: enter(.holding(ClientHelloHold(limit: context.limits.holdBytes)))
        case .spliceHeld:
            stage.heldBytes.withUnsafeBytes { upstreamOut.append($0) }
            enter(.splicing)
        case .startUpstream(let serverName): startUpstreamTLS(serverName: serverName)
        case .askPresentation:
            guard let termination = stage.termination else { return }
            enter(.presenting(termination))
            context.presentations.ask(for: self)
        case .prepareAnswer:
            guard let termination = stage.termination else { return }
            enter(.upstreamHandshake(termination))
        case .answer:
            guard let termination = stage.termination else { return }
            enter(.terminated(termination))
            // Told before our first byte can be written, so the flow engine never takes our own
            // ServerHello for the server's.
            context.observer.relayWillAnswer(leg)
        case .fallBack: fallBack()
        case .flushPhone:
            if let session = stage.termination?.phoneTLS { flushTLS(session, into: &phoneOut, descriptor: phone) }
        case .closeNotifyUpstream:
            guard let session = stage.termination?.upstreamTLS else { return }
            session.shutdown()
            flushTLS(session, into: &upstreamOut, descriptor: upstream)
        case .shutDownUpstream: shutdown(upstream, Int32(SHUT_WR))
        case .shutDownPhone: shutdown(phone, Int32(SHUT_WR))
        case .allowClosingTime: deadline = MonotonicClock.nanoseconds() + Self.closingSeconds * 1_000_000_000
        case .close: beginClosing()
        case .finish(let reset): finish(resetBoth: reset)
        case .resetPhone: resetPhone()
        case .clearDeadline: deadline = .max
        }
    }

    /// The decision with what the hold read (nothing for a decision taken before the hold).
    func record(_ decision: RelayDecision) {
        let reading = stage.heldReading
        report.decision = decision
        report.instants.decided = MonotonicClock.wallNanoseconds()
        report.serverName = reading?.serverName
        report.serverNameAsSent = reading?.serverNameAsSent
        report.offeredApplicationProtocols = reading?.offer?.applicationProtocols ?? []
    }

    func recordUpstream() {
        guard let session = stage.termination?.upstreamTLS else { return }
        let verification = session.verifyResult
        report.upstream = UpstreamReading(
            negotiation: TLSNegotiation(
                version: TLSProtocolVersion(session.negotiatedVersion), cipherSuite: CipherSuite(session.cipherSuite),
                fromHelloRetryRequest: false, source: .upstreamConnection),
            applicationProtocol: session.selectedProtocol,
            certificateVerified: verification.verified, verification: verification.text)
    }

    func settle(_ settled: RelayOutcome) {
        report.outcome = settled
        report.instants.outcome = MonotonicClock.wallNanoseconds()
        context.observer.relayDidReport(report)
    }
}
