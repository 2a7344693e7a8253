import Glibc
import TunnelVisionModel

/// The pump does all that can be done now, then sets the loop's interest; while the first
/// message is held, it decides.
extension RelayConnection {
    func pump() {
        var rounds = 0
        while rounds < 64 {
            rounds += 1
            let moved: Bool
            switch stage {
            case .holding: moved = pumpHold()
            case .upstreamHandshake: moved = pumpUpstreamHandshake()
            case .terminated: moved = pumpTerminated()
            case .splicing: moved = pumpSplice()
            case .closing: moved = pumpClosing()
            case .presenting:
                // A phone that left while its recording was read ends now, not when the answer comes.
                moved = phoneEnded
                if phoneEnded { apply(outcome.phoneClosed(reset: true)) }
            case .dialling, .redialling, .closed: moved = false
            }
            if !moved { break }
        }
        if rounds > 1, isPastHandshakes { deadline = instant(after: context.limits.idleSeconds) }
        updateInterest()
    }

    func accountBuffers() {
        var now = 0
        if stage != .closed {
            now = phoneOut.count + upstreamOut.count
            for session in [phoneTLS, upstreamTLS].compactMap({ $0 }) { now += session.pendingInput + session.pendingOutput }
        }
        context.buffered += now - accountedBuffers
        accountedBuffers = now
    }

    func updateInterest() {
        accountBuffers()
        guard stage != .closed else { return }
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
        case .terminated:
            if !phoneEnded, (phoneTLS?.pendingInput ?? 0) < limit,
               upstreamOut.count + (upstreamTLS?.pendingOutput ?? 0) < limit { phoneInterest.insert(.read) }
            if !upstreamEnded, outcome.phase == .established || phoneHalfClosed, (upstreamTLS?.pendingInput ?? 0) < limit,
               phoneOut.count + (phoneTLS?.pendingOutput ?? 0) < limit { upstreamInterest.insert(.read) }
        case .splicing:
            if !phoneEnded, upstreamOut.count < limit { phoneInterest.insert(.read) }
            if !upstreamEnded, phoneOut.count < limit { upstreamInterest.insert(.read) }
        case .closing, .closed:
            break
        }
        if limit == 0, stage == .terminated || stage == .splicing { context.waitingForBuffers[ObjectIdentifier(self)] = self }
        if !phoneOut.isEmpty { phoneInterest.insert(.write) }
        if !upstreamOut.isEmpty { upstreamInterest.insert(.write) }
        context.loop.set(phone, phoneInterest)
        if upstream >= 0 { context.loop.set(upstream, upstreamInterest) }
    }

    // MARK: Holding

    func pumpHold() -> Bool {
        // A server that speaks first is not answering a TLS client.
        let peek = recv(upstream, context.wireBuffer.baseAddress, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if peek > 0 || peek == 0 {
            decide(.splice(.serverSpokeFirst))
            return true
        }
        let room = min(hold.room, context.wireBuffer.count)
        guard room > 0 else { return false }
        switch Descriptors.read(phone, into: UnsafeMutableRawBufferPointer(rebasing: context.wireBuffer[0..<room])) {
        case .bytes(let count):
            hold.append(UnsafeRawBufferPointer(rebasing: context.wireBuffer[0..<count]))
            let decision = context.policy.decision(
                destinationPort: leg.originalDestination.port, hold: hold.state, heldBytes: hold.bytes,
                isRemembered: { context.refusals.isRemembered($0) })
            if case .settled(let settled) = hold.state { reading = settled }
            if let decision { decide(decision) }
            return true
        case .wouldBlock:
            return false
        case .endOfFile:
            phoneEnded = true
            decide(.splice(.phoneClosedDuringHold))
            return true
        case .reset:
            phoneWasReset = true
            phoneEnded = true
            report.event = .phoneLeftDuringHandshake
            beginClosing(reset: true)
            return true
        }
    }

    func decide(_ decision: RelayDecision) {
        report.decision = decision
        report.instants.decided = MonotonicClock.wallNanoseconds()
        report.serverName = reading?.serverName
        report.serverNameAsSent = reading?.serverNameAsSent
        report.offeredApplicationProtocols = reading?.offer?.applicationProtocols ?? []
        switch decision {
        case .splice(let reason):
            hold.bytes.withUnsafeBytes { upstreamOut.append($0) }
            enter(.splicing)
            if reason == .hostRemembered {
                settle(.notInspectableRemembered)
            }
        case .terminate(let name):
            startUpstreamTLS(serverName: name)
        }
    }
}
