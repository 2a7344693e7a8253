import TunnelVisionModel

/// Every choice a relay connection makes, as one pure function: given where the connection is
/// and what its sockets or TLS sessions reported, the next state and what the shell then does.
/// The stages' moves it makes are those of `RelayStage.Kind.successors`; the outcome of a
/// termination is `TerminationOutcome`'s, whose steps are turned into actions here.
enum RelayMachine {
    static func step(_ state: RelayState, _ input: RelayInput) -> (RelayState, [RelayAction]) {
        var move = Move(state: state)
        switch state.kind {
        case .dialling, .redialling: move.dialling(input)
        case .holding: move.holding(input)
        case .upstreamHandshake: move.upstreamHandshake(input)
        case .presenting: move.presenting(input)
        case .terminated: move.terminated(input)
        case .splicing: move.splicing(input)
        case .closing: move.closing(input)
        case .closed: if case .timedOut = input { move.actions.append(.clearDeadline) }
        }
        return (move.state, move.actions)
    }
}

/// One step being worked out: the state as it becomes and the actions so far.
private struct Move {
    var state: RelayState
    var actions: [RelayAction] = []

    mutating func go(_ kind: RelayStage.Kind, _ action: RelayAction) {
        state.kind = kind
        actions.append(action)
    }

    // MARK: Stages

    mutating func dialling(_ input: RelayInput) {
        switch input {
        case .dialled where state.kind == .redialling: go(.splicing, .spliceHeld)
        case .dialled:
            if let early = state.early { decide(early) } else { go(.holding, .hold) }
        case .dialFailed, .timedOut: resetPhone(.upstreamUnreachable)
        case .destinationRefused(let refusal): resetPhone(.upstreamRefusedByPolicy(refusal))
        case .phoneEnded:
            // A redial keeps the event of the termination that gave up.
            if state.event == nil { keep(.phoneLeftDuringHandshake) }
            keepEarlyDecision()
            finish(reset: true)
        case .stopping: stop()
        default: break
        }
    }

    mutating func holding(_ input: RelayInput) {
        switch input {
        case .serverSpokeFirst: decide(.splice(.serverSpokeFirst))
        case .decided(let decision): decide(decision)
        case .phoneEnded(reset: true):
            keep(.phoneLeftDuringHandshake)
            finish(reset: true)
        case .phoneEnded(reset: false): decide(.splice(.phoneClosedDuringHold))
        case .timedOut: decide(.splice(.holdTimedOut))
        case .stopping: stop()
        default: break
        }
    }

    mutating func upstreamHandshake(_ input: RelayInput) {
        switch input {
        // The phone left while we dialled the server's TLS: nothing to answer, no outcome.
        case .phoneEnded: take(state.termination.outcome.phoneClosed(reset: true))
        case .upstreamHandshakeDone(let canAnswer):
            actions.append(.recordUpstream)
            if canAnswer { go(.presenting, .askPresentation) } else { fail("no CA is loaded") }
        case .upstreamEndedDuringHandshake:
            fail(state.upstreamWasReset ? "the server reset the connection during the TLS handshake"
                : "the server closed the connection during the TLS handshake")
        case .upstreamHandshakeClosed: fail("the server closed the TLS handshake")
        case .upstreamHandshakeFailed(let detail): fail("the TLS handshake with the server failed: \(detail)")
        case .relayFailed(let reason): fail(reason)
        case .answerReady(let presentsDefect, let mirrorsUpstream):
            state.termination.presentsDefect = presentsDefect
            state.termination.outcome.presentsMirror = mirrorsUpstream
            go(.terminated, .answer)
        case .timedOut: fail("the server did not complete the TLS handshake in time")
        case .stopping: stop()
        default: break
        }
    }

    mutating func presenting(_ input: RelayInput) {
        switch input {
        // A phone that left while its recording was read ends now, not when the answer comes.
        case .phoneEnded: take(state.termination.outcome.phoneClosed(reset: true))
        case .presentationArrived:
            // Back to the upstream handshake's stage while the answer is prepared: a failure from
            // here is one before the answer.
            go(.upstreamHandshake, .prepareAnswer)
            if state.phoneEnded { take(state.termination.outcome.phoneClosed(reset: true)) }
        case .timedOut(let seconds): fail("the open recording's inspection mode could not be read within \(seconds) s")
        case .stopping: stop()
        default: break
        }
    }

    mutating func terminated(_ input: RelayInput) {
        let termination = state.termination
        switch input {
        case .answered: state.termination.outcome.answered()
        case .phoneAlert(let code): take(state.termination.outcome.phoneSentAlert(code))
        case .phoneHandshakeFailed(let detail, _) where termination.outcome.phase == .beforeAnswer:
            // Nothing reached the phone: what OpenSSL queued (an alert of ours) is dropped.
            fail("our TLS server could not answer the phone's ClientHello: \(detail)")
        case .phoneHandshakeFailed(let detail, let relayAlert):
            // The alert, if the phone sent one, was taken before; ours reaches the phone.
            actions.append(.flushPhone)
            if termination.outcome.phase == .finished {
                close(reset: false)
            } else if let relayAlert {
                take(state.termination.outcome.relaySentAlert(relayAlert, reason: "our TLS server ended the phone's handshake: \(detail)"))
            } else {
                fail("the TLS handshake with the phone failed: \(detail)")
            }
        case .phoneHandshakeDone:
            state.termination.outcome.handshakeCompleted()
            actions.append(.recordHandshakeCompleted)
        case .phoneHandshakeClosed: take(state.termination.outcome.phoneClosed(reset: false))
        case .phoneEnded(let reset) where termination.isHandshaking: take(state.termination.outcome.phoneClosed(reset: reset))
        case .phoneEnded(let reset) where termination.phoneHalfClosed: if reset { finish(reset: true) }
        case .phoneEnded(reset: true): take(state.termination.outcome.phoneClosed(reset: true))
        case .phoneEnded(reset: false): phoneFinishedSending(closeNotify: false)
        case .phoneData(let count): take(state.termination.outcome.phoneSentData(count))
        case .phoneCloseNotify: phoneFinishedSending(closeNotify: true)
        case .phoneReadFailed: take(state.termination.outcome.phoneClosed(reset: true))
        case .upstreamQueueEmpty where termination.phoneHalfClosed && termination.upstreamShutdownPending:
            state.termination.upstreamShutdownPending = false
            actions.append(.shutDownUpstream)
        case .serverClosedTLS where termination.phoneHalfClosed: close(reset: false)
        case .serverEnded where termination.phoneHalfClosed: close(reset: state.upstreamWasReset)
        case .serverClosedTLS, .serverEnded: take(state.termination.outcome.upstreamClosed())
        case .timedOut where termination.phoneHalfClosed: close(reset: false)
        case .timedOut(let seconds) where termination.isHandshaking:
            fail("the phone did not complete the TLS handshake within \(seconds) s")
        // Idle: both sides get a reset, which the tap records; the outcome already reported stands.
        case .timedOut: finish(reset: true)
        case .stopping: stop()
        default: break
        }
    }

    mutating func splicing(_ input: RelayInput) {
        switch input {
        case .spliceRound(let writeFailed, _, _) where writeFailed || state.phoneWasReset || state.upstreamWasReset:
            finish(reset: true)
        case .spliceRound(_, let toPhoneEmpty, let toUpstreamEmpty):
            // Half-closes pass through once the queue behind them has drained (the FIN last).
            if state.phoneEnded, toUpstreamEmpty, !state.upstreamShutDown {
                state.upstreamShutDown = true
                actions.append(.shutDownUpstream)
            }
            if state.upstreamEnded, toPhoneEmpty, !state.phoneShutDown {
                state.phoneShutDown = true
                actions.append(.shutDownPhone)
            }
            if state.phoneEnded, state.upstreamEnded, toPhoneEmpty, toUpstreamEmpty { finish(reset: false) }
        case .timedOut: finish(reset: true)
        case .stopping: stop()
        default: break
        }
    }

    mutating func closing(_ input: RelayInput) {
        switch input {
        case .flushed, .timedOut: finish(reset: false)
        case .stopping: stop()
        default: break
        }
    }

    // MARK: Moves shared by the stages

    /// The decision on the phone's first message (or the one taken before it).
    mutating func decide(_ decision: RelayDecision) {
        state.decision = decision
        actions.append(.recordDecision(decision))
        switch decision {
        case .splice(let reason):
            go(.splicing, .spliceHeld)
            if reason == .hostRemembered { actions.append(.settle(.notInspectableRemembered)) }
        case .terminate(let serverName):
            state.termination = TerminationState()
            go(.upstreamHandshake, .startUpstream(serverName: serverName))
        }
    }

    /// A termination's outcome step, as the shell's actions.
    mutating func take(_ step: TerminationOutcome.Step) {
        switch step {
        case .carryOn:
            break
        case .settle(let settled):
            // A leaf made to be refused says nothing of the host's pinning: its refusal is not remembered.
            if case .notInspectable(let alert) = settled, !state.termination.presentsDefect {
                actions.append(.rememberRefusal(alert: alert))
            }
            actions.append(.settle(settled))
            if state.termination.outcome.phase == .finished { close(reset: false) }
        case .fallBackToPlainUpstream:
            keep(state.termination.outcome.event)
            // The plain upstream is a new socket: the old one's end is forgotten.
            state.upstreamEnded = false
            state.upstreamWasReset = false
            go(.redialling, .fallBack)
        case .end:
            keep(state.termination.outcome.event)
            close(reset: state.phoneWasReset || state.upstreamWasReset)
        }
    }

    mutating func fail(_ reason: String) {
        take(state.termination.outcome.failed(reason))
    }

    /// The phone will send nothing more after its handshake (close_notify, or its FIN): the
    /// outcome takes the fact now, the server gets the same close, and what the server still
    /// answers reaches the phone (bounded by the closing time).
    mutating func phoneFinishedSending(closeNotify: Bool) {
        guard !state.termination.phoneHalfClosed else { return }
        _ = state.termination.outcome.phoneClosed(reset: false)
        keep(state.termination.outcome.event)
        state.termination.phoneHalfClosed = true
        if closeNotify {
            actions.append(.closeNotifyUpstream)
        } else {
            state.termination.upstreamShutdownPending = true
        }
        actions.append(.allowClosingTime)
    }

    mutating func keep(_ event: RelayEvent?) {
        state.event = event
        actions.append(.keepEvent(event))
    }

    mutating func keepEarlyDecision() {
        guard state.decision == nil, state.kind == .dialling, let early = state.early else { return }
        state.decision = early
        actions.append(.keepDecision(early))
    }

    mutating func resetPhone(_ event: RelayEvent) {
        keep(event)
        keepEarlyDecision()
        go(.closed, .resetPhone)
    }

    mutating func close(reset: Bool) {
        if reset { finish(reset: true) } else { go(.closing, .close) }
    }

    mutating func finish(reset: Bool) {
        // A termination's fact stands unless an earlier one was kept.
        if state.event == nil, case .terminate? = state.decision, let event = state.termination.outcome.event { keep(event) }
        go(.closed, .finish(reset: reset))
    }

    mutating func stop() {
        if state.event == nil { keep(.relayFailed(reason: "the relay stopped")) }
        finish(reset: false)
    }
}
