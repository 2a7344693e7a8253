import Testing
import TunnelVisionModel
@testable import TunnelVisionRelay

/// The relay connection's choices without a socket: each row of the outcome table
/// (docs/ARCHITECTURE.md § The relay) in each phase, as the next state and the shell's actions.
struct RelayMachineTests {
    typealias Phase = TerminationOutcome.Phase

    /// A terminated connection whose phone's handshake with us is at `phase` (before the answer,
    /// answering, or established), optionally with an outcome already settled.
    static func terminated(_ phase: Phase, inspected: Bool = false) -> RelayState {
        var state = RelayState(kind: .terminated, decision: .terminate(serverName: "example.org"))
        if phase != .beforeAnswer { state.termination.outcome.answered() }
        if phase == .established { state.termination.outcome.handshakeCompleted() }
        if inspected { _ = state.termination.outcome.phoneSentData(1) }
        return state
    }

    static func step(_ state: RelayState, _ input: RelayInput) -> (RelayState, [RelayAction]) {
        RelayMachine.step(state, input)
    }

    /// The phone's side ended as the socket said, then the connection reported it.
    static func phoneEnds(_ state: RelayState, reset: Bool) -> (RelayState, [RelayAction]) {
        var state = state
        state.phoneEnded = true
        state.phoneWasReset = reset
        return step(state, .phoneEnded(reset: reset))
    }

    static let handedOver = RelayEvent.handedToPlainUpstream(reason: "the phone closed before the relay answered")

    // MARK: The phone sends a refusing alert

    @Test func aRefusingAlertBeforeTheAnswerIsOnlyAClosingAlert() {
        let (next, actions) = Self.step(Self.terminated(.beforeAnswer), .phoneAlert(48))
        #expect(actions == [.keepEvent(.phoneClosingAlertDuringHandshake(alert: 48)), .close])
        #expect(next.kind == .closing)
        #expect(next.termination.outcome.outcome == nil)
    }

    @Test func aRefusingAlertWhileAnsweringIsNotInspectableAndRemembered() {
        let (next, actions) = Self.step(Self.terminated(.answering), .phoneAlert(48))
        #expect(actions == [.rememberRefusal(alert: 48), .settle(.notInspectable(alert: 48)), .close])
        #expect(next.kind == .closing)
        #expect(next.event == nil)
    }

    @Test func aRefusalOfALeafMadeToBeRefusedIsNotRemembered() {
        var state = Self.terminated(.answering)
        state.termination.presentsDefect = true
        let (_, actions) = Self.step(state, .phoneAlert(48))
        #expect(actions == [.settle(.notInspectable(alert: 48)), .close])
    }

    @Test func aRefusingAlertAfterTheHandshakeIsAClose() {
        let (next, actions) = Self.step(Self.terminated(.established), .phoneAlert(48))
        #expect(actions == [.keepEvent(.phoneClosedAfterHandshake), .close])
        #expect(next.kind == .closing)
    }

    // MARK: The phone sends close_notify, user_canceled or ech_required

    @Test(arguments: [UInt8(0), 90, 121])
    func aClosingAlertDuringTheHandshakeIsKeptAsAnEvent(_ code: UInt8) {
        for phase in [Phase.beforeAnswer, .answering] {
            let (next, actions) = Self.step(Self.terminated(phase), .phoneAlert(code))
            #expect(actions == [.keepEvent(.phoneClosingAlertDuringHandshake(alert: code)), .close], "\(phase)")
            #expect(next.termination.outcome.outcome == nil)
        }
        let (_, after) = Self.step(Self.terminated(.established), .phoneAlert(code))
        #expect(after == [.keepEvent(.phoneClosedAfterHandshake), .close])
    }

    // MARK: The phone sends application data

    @Test func dataCountsOnlyAfterTheHandshakeAndSettlesOnce() {
        for phase in [Phase.beforeAnswer, .answering] {
            let (next, actions) = Self.step(Self.terminated(phase), .phoneData(10))
            #expect(actions.isEmpty, "\(phase)")
            #expect(next.termination.outcome.outcome == nil)
        }
        let (next, actions) = Self.step(Self.terminated(.established), .phoneData(10))
        #expect(actions == [.settle(.inspected)])
        #expect(next.kind == .terminated)
        #expect(Self.step(next, .phoneData(10)).1.isEmpty)
    }

    // MARK: The phone closes (FIN)

    @Test func aFINBeforeTheAnswerHandsTheHeldStreamOn() {
        var state = Self.terminated(.beforeAnswer)
        state.upstreamEnded = true
        let (next, actions) = Self.phoneEnds(state, reset: false)
        #expect(actions == [.keepEvent(Self.handedOver), .fallBack])
        #expect(next.kind == .redialling)
        // The plain upstream is a new socket.
        #expect(!next.upstreamEnded)
    }

    @Test func aFINWhileAnsweringIsThePhoneLeaving() {
        let (next, actions) = Self.phoneEnds(Self.terminated(.answering), reset: false)
        #expect(actions == [.keepEvent(.phoneLeftDuringHandshake), .close])
        #expect(next.kind == .closing)
    }

    @Test func aFINAfterTheHandshakeLetsTheServerAnswerThenCloses() {
        let (next, actions) = Self.phoneEnds(Self.terminated(.established), reset: false)
        #expect(actions == [.keepEvent(.phoneClosedAfterHandshake), .allowClosingTime])
        #expect(next.kind == .terminated)
        #expect(next.termination.phoneHalfClosed && next.termination.upstreamShutdownPending)
        // The server gets the FIN once the phone's bytes before it have left, once.
        let (drained, shutDown) = Self.step(next, .upstreamQueueEmpty)
        #expect(shutDown == [.shutDownUpstream])
        #expect(Self.step(drained, .upstreamQueueEmpty).1.isEmpty)
        // The server's end closes the connection without a new fact.
        let (closing, end) = Self.step(drained, .serverEnded)
        #expect(end == [.close])
        #expect(closing.event == .phoneClosedAfterHandshake)
    }

    @Test func aCloseNotifyAfterTheHandshakeIsPassedToTheServer() {
        let (next, actions) = Self.step(Self.terminated(.established), .phoneCloseNotify)
        #expect(actions == [.keepEvent(.phoneClosedAfterHandshake), .closeNotifyUpstream, .allowClosingTime])
        #expect(next.termination.phoneHalfClosed && !next.termination.upstreamShutdownPending)
    }

    @Test func aFINAfterAnOutcomeIsAClose() {
        let (_, actions) = Self.phoneEnds(Self.terminated(.established, inspected: true), reset: false)
        #expect(actions == [.keepEvent(.closed), .allowClosingTime])
    }

    // MARK: The phone resets

    @Test func aResetDuringTheHandshakeIsThePhoneLeaving() {
        for phase in [Phase.beforeAnswer, .answering] {
            let (next, actions) = Self.phoneEnds(Self.terminated(phase), reset: true)
            #expect(actions == [.keepEvent(.phoneLeftDuringHandshake), .finish(reset: true)], "\(phase)")
            #expect(next.kind == .closed)
        }
    }

    @Test func aResetAfterTheHandshakeIsKeptOrClosesAnOutcome() {
        let (_, without) = Self.phoneEnds(Self.terminated(.established), reset: true)
        #expect(without == [.keepEvent(.phoneResetAfterHandshake), .finish(reset: true)])
        let (_, after) = Self.phoneEnds(Self.terminated(.established, inspected: true), reset: true)
        #expect(after == [.keepEvent(.closed), .finish(reset: true)])
    }

    // MARK: The server closes

    @Test func theServerClosingBeforeTheAnswerHandsTheHeldStreamOn() {
        var handshaking = RelayState(kind: .upstreamHandshake, decision: .terminate(serverName: "example.org"))
        handshaking.upstreamEnded = true
        let (redial, actions) = Self.step(handshaking, .upstreamEndedDuringHandshake)
        #expect(actions == [
            .keepEvent(.handedToPlainUpstream(reason: "the server closed the connection during the TLS handshake")), .fallBack,
        ])
        #expect(redial.kind == .redialling)
        let (_, answerNotSent) = Self.step(Self.terminated(.beforeAnswer), .serverEnded)
        #expect(answerNotSent == [.keepEvent(.handedToPlainUpstream(reason: "the server closed before the relay answered")), .fallBack])
    }

    @Test func theServerClosingWhileAnsweringIsTheRelaysFailure() {
        let (_, actions) = Self.step(Self.terminated(.answering), .serverClosedTLS)
        #expect(actions == [.keepEvent(.relayFailed(reason: "the server closed during the phone's handshake")), .close])
    }

    @Test func theServerClosingAfterTheHandshakeIsTheEndOrAFactWithoutData() {
        let (_, without) = Self.step(Self.terminated(.established), .serverEnded)
        #expect(without == [.keepEvent(.serverClosedBeforePhoneData), .close])
        let (_, after) = Self.step(Self.terminated(.established, inspected: true), .serverClosedTLS)
        #expect(after == [.keepEvent(.closed), .close])
        var reset = Self.terminated(.established, inspected: true)
        reset.upstreamWasReset = true
        #expect(Self.step(reset, .serverEnded).1 == [.keepEvent(.closed), .finish(reset: true)])
    }

    // MARK: The relay fails

    @Test func aFailureOfOursBeforeTheAnswerHandsTheHeldStreamOn() {
        let (next, actions) = Self.step(Self.terminated(.beforeAnswer), .phoneHandshakeFailed("no shared cipher", relayAlert: 40))
        // Nothing reached the phone: our alert is dropped with the session.
        #expect(actions == [
            .keepEvent(.handedToPlainUpstream(reason: "our TLS server could not answer the phone's ClientHello: no shared cipher")),
            .fallBack,
        ])
        #expect(next.kind == .redialling)
        let minting = RelayState(kind: .upstreamHandshake, decision: .terminate(serverName: "example.org"))
        #expect(Self.step(minting, .relayFailed("no leaf")).1 == [.keepEvent(.handedToPlainUpstream(reason: "no leaf")), .fallBack])
    }

    @Test func aFailureOfOursWhileAnsweringIsTheRelaysFailure() {
        let (_, withoutAlert) = Self.step(Self.terminated(.answering), .phoneHandshakeFailed("bad record", relayAlert: nil))
        #expect(withoutAlert == [
            .flushPhone, .keepEvent(.relayFailed(reason: "the TLS handshake with the phone failed: bad record")), .close,
        ])
        let (_, withAlert) = Self.step(Self.terminated(.answering), .phoneHandshakeFailed("bad record", relayAlert: 50))
        #expect(withAlert == [
            .flushPhone,
            .keepEvent(.relaySentAlert(alert: 50, reason: "our TLS server ended the phone's handshake: bad record")), .close,
        ])
        let (_, late) = Self.step(Self.terminated(.answering), .timedOut(handshakeSeconds: 10))
        #expect(late == [.keepEvent(.relayFailed(reason: "the phone did not complete the TLS handshake within 10 s")), .close])
    }

    @Test func theRelayStoppingAfterTheHandshakeIsItsFailure() {
        let (next, actions) = Self.step(Self.terminated(.established), .stopping)
        #expect(actions == [.keepEvent(.relayFailed(reason: "the relay stopped")), .finish(reset: false)])
        #expect(next.kind == .closed)
        // An idle connection past its handshakes is reset; the outcome reported stands.
        #expect(Self.step(Self.terminated(.established, inspected: true), .timedOut(handshakeSeconds: 10)).1 == [.finish(reset: true)])
    }

    // MARK: Before a termination

    @Test func aDialRefusedOrUnansweredResetsThePhoneWithTheEarlyDecision() {
        let dialling = RelayState(early: .splice(.portNotInspected))
        let (next, actions) = Self.step(dialling, .dialFailed)
        #expect(actions == [.keepEvent(.upstreamUnreachable), .keepDecision(.splice(.portNotInspected)), .resetPhone])
        #expect(next.kind == .closed)
        #expect(Self.step(RelayState(), .destinationRefused(.loopback)).1 == [.keepEvent(.upstreamRefusedByPolicy(.loopback)), .resetPhone])
        #expect(Self.step(dialling, .dialled).1 == [.recordDecision(.splice(.portNotInspected)), .spliceHeld])
        #expect(Self.step(RelayState(), .dialled).1 == [.hold])
    }

    @Test func theHoldEndsInADecision() {
        let holding = RelayState(kind: .holding)
        let (terminating, actions) = Self.step(holding, .decided(.terminate(serverName: "example.org")))
        #expect(actions == [.recordDecision(.terminate(serverName: "example.org")), .startUpstream(serverName: "example.org")])
        #expect(terminating.kind == .upstreamHandshake)
        #expect(Self.step(holding, .decided(.splice(.hostRemembered))).1
            == [.recordDecision(.splice(.hostRemembered)), .spliceHeld, .settle(.notInspectableRemembered)])
        #expect(Self.step(holding, .phoneEnded(reset: false)).1 == [.recordDecision(.splice(.phoneClosedDuringHold)), .spliceHeld])
        #expect(Self.step(holding, .phoneEnded(reset: true)).1 == [.keepEvent(.phoneLeftDuringHandshake), .finish(reset: true)])
        #expect(Self.step(holding, .timedOut(handshakeSeconds: 10)).1 == [.recordDecision(.splice(.holdTimedOut)), .spliceHeld])
    }

    @Test func aSplicePassesEachHalfCloseOnceAndEndsWhenBothHaveEnded() {
        var splicing = RelayState(kind: .splicing, decision: .splice(.notTLS))
        splicing.phoneEnded = true
        let (once, actions) = Self.step(splicing, .spliceRound(writeFailed: false, toPhoneEmpty: true, toUpstreamEmpty: true))
        #expect(actions == [.shutDownUpstream])
        var both = once
        both.upstreamEnded = true
        #expect(Self.step(both, .spliceRound(writeFailed: false, toPhoneEmpty: true, toUpstreamEmpty: true)).1
            == [.shutDownPhone, .finish(reset: false)])
        #expect(Self.step(splicing, .spliceRound(writeFailed: true, toPhoneEmpty: true, toUpstreamEmpty: true)).1 == [.finish(reset: true)])
    }

    /// Whatever a stage is told, the move the machine makes is one the transition table has.
    @Test func everyMoveIsInTheTable() {
        let inputs: [RelayInput] = [
            .dialled, .dialFailed, .destinationRefused(.loopback), .phoneEnded(reset: false), .phoneEnded(reset: true),
            .serverSpokeFirst, .decided(.terminate(serverName: "a")), .decided(.splice(.notTLS)),
            .upstreamHandshakeDone(canAnswer: true), .upstreamHandshakeDone(canAnswer: false), .upstreamHandshakeClosed,
            .upstreamHandshakeFailed("x"), .upstreamEndedDuringHandshake, .presentationArrived,
            .answerReady(presentsDefect: false, mirrorsUpstream: false), .relayFailed("x"), .answered, .phoneAlert(48), .phoneAlert(0),
            .phoneHandshakeDone, .phoneHandshakeClosed, .phoneHandshakeFailed("x", relayAlert: nil), .phoneData(1), .phoneCloseNotify,
            .phoneReadFailed, .upstreamQueueEmpty, .serverClosedTLS, .serverEnded,
            .spliceRound(writeFailed: false, toPhoneEmpty: true, toUpstreamEmpty: true), .flushed, .timedOut(handshakeSeconds: 1), .stopping,
        ]
        for kind in RelayStage.Kind.allCases {
            for phase in [Phase.beforeAnswer, .answering, .established] {
                for reset in [false, true] {
                    var state = Self.terminated(phase)
                    state.kind = kind
                    state.phoneEnded = reset
                    state.phoneWasReset = reset
                    for input in inputs {
                        let next = Self.step(state, input).0.kind
                        #expect(next == kind || kind.mayMove(to: next), "\(kind) → \(next) on \(input)")
                    }
                }
            }
        }
    }
}
