import Glibc
import TunnelVisionModel
import TunnelVisionWire

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
            case .upstreamHandshake(let termination): moved = pumpUpstreamHandshake(termination)
            case .terminated(let termination): moved = pumpTerminated(termination)
            case .splicing(let splice): moved = pumpSplice(splice)
            case .closing: moved = pumpClosing()
            case .presenting(let termination):
                // A phone that left while its recording was read ends now, not when the answer comes.
                moved = phoneEnded
                if phoneEnded { apply(termination.outcome.phoneClosed(reset: true), of: termination) }
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
            if !upstreamEnded, termination.outcome.phase == .established || termination.phoneHalfClosed,
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
        defer { keep(hold) }
        // A server that speaks first is not answering a TLS client.
        let peek = recv(upstream, context.wireBuffer.baseAddress, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if peek > 0 || peek == 0 {
            decide(.splice(.serverSpokeFirst), hold: hold)
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
            if let decision { decide(decision, hold: hold) }
            return true
        case .wouldBlock:
            return false
        case .endOfFile:
            phoneEnded = true
            decide(.splice(.phoneClosedDuringHold), hold: hold)
            return true
        case .reset:
            phoneWasReset = true
            phoneEnded = true
            report.event = .phoneLeftDuringHandshake
            beginClosing(reset: true)
            return true
        }
    }

    /// `hold`: what the phone sent first (none for a decision taken before the hold).
    func decide(_ decision: RelayDecision, hold: ClientHelloHold?) {
        let reading: ClientHelloReading? = if case .settled(let settled)? = hold?.state { settled } else { nil }
        let held = hold?.bytes ?? []
        report.decision = decision
        report.instants.decided = MonotonicClock.wallNanoseconds()
        report.serverName = reading?.serverName
        report.serverNameAsSent = reading?.serverNameAsSent
        report.offeredApplicationProtocols = reading?.offer?.applicationProtocols ?? []
        switch decision {
        case .splice(let reason):
            held.withUnsafeBytes { upstreamOut.append($0) }
            enter(.splicing(RelayStage.Splice()))
            if reason == .hostRemembered {
                settle(.notInspectableRemembered)
            }
        case .terminate(let name):
            startUpstreamTLS(serverName: name, held: held, reading: reading)
        }
    }
}
