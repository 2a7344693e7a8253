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
            react(.dialFailed)
        }
    }

    /// A destination the relay never dials: the machine resets the phone, as from a closed port.
    func refuse(_ refusal: DestinationRefusal) {
        react(.destinationRefused(refusal))
    }

    func finishDial() {
        react(Sockets.pendingError(of: upstream) == 0 ? .dialled : .dialFailed)
    }

    /// The original destination refused or never answered, or is one the relay never dials: the
    /// phone gets a reset.
    func resetPhone() {
        closeUpstream()
        context.loop.remove(phone)
        Sockets.reset(phone)
        enter(.closed)
        reportEnd()
    }

    /// Before our first byte reached the phone: a new plain connection gets the held stream (the
    /// termination's event, which says why, is kept).
    func fallBack() {
        let held = stage.heldBytes
        // Only a terminated stage has told the observer that the relay answers.
        let announcedAnswer = stage.kind == .terminated
        phoneOut = ByteQueue()
        upstreamOut = ByteQueue()
        closeUpstream()
        if announcedAnswer { context.observer.relayDidRollBack(leg) }
        enter(.redialling(held: held))
        connectUpstream()
    }
}
