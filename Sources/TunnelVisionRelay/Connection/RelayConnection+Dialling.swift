import Glibc
import TunnelVisionModel

/// Dialling the original destination: at the start, and again for a plain upstream when a
/// termination gave up before its answer reached the phone.
extension RelayConnection {
    func dial() {
        let destination = leg.originalDestination.address
        if let refusal = DestinationPolicy.refusal(for: destination, local: LocalAddresses.current()) {
            refuse(refusal)
            return
        }
        connectUpstream()
    }

    /// A non-blocking connect to the original destination; the phone is not read until it is done.
    func connectUpstream() {
        switch context.dial(leg.originalDestination) {
        case .success(let descriptor):
            upstream = descriptor
            deadline = MonotonicClock.nanoseconds() + Int64(context.limits.connectSeconds * 1e9)
            context.loop.set(phone, [])
            context.loop.set(upstream, .write)
            loopRegistry?.adopt(upstream, for: self)
        case .failure:
            unreachable()
        }
    }

    func finishDial() {
        guard Sockets.pendingError(of: upstream) == 0 else {
            unreachable()
            return
        }
        if stage == .redialling {
            hold.bytes.withUnsafeBytes { upstreamOut.append($0) }
            enter(.splicing)
            return
        }
        if let earlyDecision {
            decide(earlyDecision)
            return
        }
        enter(.holding)
    }

    /// The original destination refused or never answered: the phone gets a reset.
    func unreachable() {
        resetPhone(.upstreamUnreachable)
    }

    /// A destination the relay never dials: the phone gets a reset, as from a closed port.
    func refuse(_ refusal: DestinationRefusal) {
        resetPhone(.upstreamRefusedByPolicy(refusal))
    }

    func resetPhone(_ event: RelayEvent) {
        report.event = event
        if report.decision == nil, let earlyDecision { report.decision = earlyDecision }
        closeUpstream()
        context.loop.remove(phone)
        Sockets.reset(phone)
        enter(.closed)
        report.instants.ended = MonotonicClock.wallNanoseconds()
        report.isFinal = true
        accountBuffers()
        context.waitingForBuffers[ObjectIdentifier(self)] = nil
        if announcedAnswer { context.observer.relayDidRollBack(leg) }
        context.observer.relayDidReport(report)
        loopRegistry?.forget(self)
    }

    /// Before our first byte reached the phone: a new plain connection gets the held stream.
    func fallBack() {
        report.event = outcome.event
        phoneTLS = nil
        upstreamTLS = nil
        phoneOut = ByteQueue()
        upstreamOut = ByteQueue()
        closeUpstream()
        upstreamEnded = false
        upstreamWasReset = false
        if announcedAnswer {
            announcedAnswer = false
            context.observer.relayDidRollBack(leg)
        }
        enter(.redialling)
        connectUpstream()
    }
}
