import Glibc
import TunnelVisionModel
import TunnelVisionWire

/// The pump does all that can be done now, then sets the loop's interest; while the first
/// message is held, it asks the policy for its decision.
extension RelayConnection {
    func pump() {
        var rounds = 0
        while rounds < 64 {
            rounds += 1
            let moved: Bool
            switch stage {
            case .holding: moved = pumpHold()
            case .upstreamHandshake(let termination): moved = pumpUpstreamHandshake(termination)
            case .terminated(let termination): moved = pumpTerminated(termination)
            case .splicing: moved = pumpSplice()
            case .closing: moved = pumpClosing()
            case .presenting:
                // A phone that left while its recording was read ends now, not when the answer comes.
                moved = phoneEnded
                if phoneEnded { react(.phoneEnded(reset: phoneWasReset)) }
            case .dialling, .redialling, .closed: moved = false
            }
            if !moved { break }
        }
        if rounds > 1, isPastHandshakes { deadline = instant(after: context.limits.idleSeconds) }
        updateInterest()
    }

    func accountBuffers() {
        var now = 0
        if stage.kind != .closed {
            now = phoneOut.count + upstreamOut.count + (stage.termination?.bufferedBytes ?? 0)
        }
        context.buffered += now - accountedBuffers
        accountedBuffers = now
    }

    func updateInterest() {
        accountBuffers()
        guard stage.kind != .closed else { return }
        let limit = context.readLimit
        var phoneInterest: EventLoop.Interest = []
        var upstreamInterest: EventLoop.Interest = []
        switch stage {
        case .dialling, .redialling:
            upstreamInterest = .write
        case .holding:
            phoneInterest = .read
            upstreamInterest = .read
        case .upstreamHandshake:
            upstreamInterest = .read
        case .presenting:
            break
        case .terminated(let termination):
            if !phoneEnded, (termination.phoneTLS?.pendingInput ?? 0) < limit,
               upstreamOut.count + termination.upstreamTLS.pendingOutput < limit { phoneInterest.insert(.read) }
            if !upstreamEnded, state.termination.outcome.phase == .established || state.termination.phoneHalfClosed,
               termination.upstreamTLS.pendingInput < limit,
               phoneOut.count + (termination.phoneTLS?.pendingOutput ?? 0) < limit { upstreamInterest.insert(.read) }
        case .splicing:
            if !phoneEnded, upstreamOut.count < limit { phoneInterest.insert(.read) }
            if !upstreamEnded, phoneOut.count < limit { upstreamInterest.insert(.read) }
        case .closing, .closed:
            break
        }
        if limit == 0, stage.kind == .terminated || stage.kind == .splicing { context.waitingForBuffers[ObjectIdentifier(self)] = self }
        if !phoneOut.isEmpty { phoneInterest.insert(.write) }
        if !upstreamOut.isEmpty { upstreamInterest.insert(.write) }
        context.loop.set(phone, phoneInterest)
        if upstream >= 0 { context.loop.set(upstream, upstreamInterest) }
    }

    // MARK: Holding

    func pumpHold() -> Bool {
        guard var hold = takeHold() else { return false }
        // A server that speaks first is not answering a TLS client.
        let peek = recv(upstream, context.wireBuffer.baseAddress, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if peek > 0 || peek == 0 {
            keep(hold)
            react(.serverSpokeFirst)
            return true
        }
        let room = min(hold.room, context.wireBuffer.count)
        guard room > 0 else {
            keep(hold)
            return false
        }
        let read = Descriptors.read(phone, into: UnsafeMutableRawBufferPointer(rebasing: context.wireBuffer[0..<room]))
        if case .bytes(let count) = read { hold.append(UnsafeRawBufferPointer(rebasing: context.wireBuffer[0..<count])) }
        // The decision reads the hold from its stage.
        keep(hold)
        switch read {
        case .bytes:
            let decision = context.policy.decision(
                destinationPort: leg.originalDestination.port, hold: hold.state, heldBytes: hold.bytes,
                isRemembered: { context.refusals.isRemembered($0) })
            if let decision { react(.decided(decision)) }
            return true
        case .wouldBlock:
            return false
        case .endOfFile:
            phoneEnded = true
            react(.phoneEnded(reset: false))
            return true
        case .reset:
            phoneWasReset = true
            phoneEnded = true
            react(.phoneEnded(reset: true))
            return true
        }
    }
}
