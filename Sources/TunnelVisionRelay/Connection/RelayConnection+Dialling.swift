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
        switch stage {
        case .redialling(let held):
            held.withUnsafeBytes { upstreamOut.append($0) }
            enter(.splicing(RelayStage.Splice()))
        case .dialling(let early?):
            decide(early, hold: nil)
        case .dialling(nil):
            enter(.holding(ClientHelloHold(limit: context.limits.holdBytes)))
        default:
            break
        }
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
        if report.decision == nil, case .dialling(let early?) = stage { report.decision = early }
        closeUpstream()
        context.loop.remove(phone)
        Sockets.reset(phone)
        enter(.closed)
        reportEnd()
    }

    /// Before our first byte reached the phone: a new plain connection gets the held stream.
    /// `event` is the termination's, which says why.
    func fallBack(event: RelayEvent?, held: [UInt8]) {
        // Only a terminated stage has told the observer that the relay answers.
        let announcedAnswer = stage.kind == .terminated
        report.event = event
        phoneOut = ByteQueue()
        upstreamOut = ByteQueue()
        closeUpstream()
        upstreamEnded = false
        upstreamWasReset = false
        if announcedAnswer { context.observer.relayDidRollBack(leg) }
        enter(.redialling(held: held))
        connectUpstream()
    }
}
