import Testing
@testable import TunnelVisionRelay

@Suite struct TerminationOutcomeTests {
    /// What happens on the phone leg, in order.
    enum Happening: Sendable, Hashable {
        case answered, handshakeDone, alert(UInt8), data(Int), closed, reset, serverClosed, failed
        case relayAlert(UInt8), mirror
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let happenings: [Happening]
        let outcome: RelayOutcome?
        let event: RelayEvent?
        var lastStep: TerminationOutcome.Step? = nil
        var testDescription: String { label }
    }

    @Test(arguments: [
        Case(label: "unknown_ca during our handshake → notInspectable, code kept",
             happenings: [.answered, .alert(48)], outcome: .notInspectable(alert: 48), event: nil,
             lastStep: .settle(.notInspectable(alert: 48))),
        Case(label: "bad_certificate during our handshake → notInspectable",
             happenings: [.answered, .alert(42)], outcome: .notInspectable(alert: 42), event: nil),
        Case(label: "handshake done and data from the phone → inspected",
             happenings: [.answered, .handshakeDone, .data(78)], outcome: .inspected, event: nil,
             lastStep: .settle(.inspected)),
        Case(label: "inspected, then the phone closes → inspected, closed",
             happenings: [.answered, .handshakeDone, .data(78), .closed], outcome: .inspected, event: .closed),
        Case(label: "handshake done, phone closes without data → no outcome, fact kept",
             happenings: [.answered, .handshakeDone, .closed], outcome: nil, event: .phoneClosedAfterHandshake,
             lastStep: .end),
        Case(label: "handshake done, close_notify without data → no outcome",
             happenings: [.answered, .handshakeDone, .alert(0)], outcome: nil, event: .phoneClosedAfterHandshake),
        Case(label: "handshake done, user_canceled without data → no outcome",
             happenings: [.answered, .handshakeDone, .alert(90)], outcome: nil, event: .phoneClosedAfterHandshake),
        Case(label: "handshake done, reset without data → no outcome",
             happenings: [.answered, .handshakeDone, .reset], outcome: nil, event: .phoneResetAfterHandshake),
        Case(label: "an empty read is not data",
             happenings: [.answered, .handshakeDone, .data(0), .closed], outcome: nil, event: .phoneClosedAfterHandshake),
        Case(label: "close during our handshake without alert → no outcome",
             happenings: [.answered, .closed], outcome: nil, event: .phoneLeftDuringHandshake),
        Case(label: "reset during our handshake without alert → no outcome",
             happenings: [.answered, .reset], outcome: nil, event: .phoneLeftDuringHandshake),
        Case(label: "close_notify during our handshake → no outcome",
             happenings: [.answered, .alert(0)], outcome: nil, event: .phoneClosingAlertDuringHandshake(alert: 0)),
        Case(label: "user_canceled during our handshake → no outcome",
             happenings: [.answered, .alert(90)], outcome: nil, event: .phoneClosingAlertDuringHandshake(alert: 90)),
        Case(label: "ech_required during our handshake → no outcome",
             happenings: [.answered, .alert(121)], outcome: nil, event: .phoneClosingAlertDuringHandshake(alert: 121)),
        Case(label: "a failure before our first byte → the held stream goes to a plain upstream",
             happenings: [.failed], outcome: nil, event: .handedToPlainUpstream(reason: "test"),
             lastStep: .fallBackToPlainUpstream),
        Case(label: "the phone's FIN before our first byte → plain upstream, FIN last",
             happenings: [.closed], outcome: nil,
             event: .handedToPlainUpstream(reason: "the phone closed before the relay answered"),
             lastStep: .fallBackToPlainUpstream),
        Case(label: "a failure after our first byte → no fallback, no outcome",
             happenings: [.answered, .failed], outcome: nil, event: .relayFailed(reason: "test"), lastStep: .end),
        Case(label: "the server closes before the phone's data → no outcome",
             happenings: [.answered, .handshakeDone, .serverClosed], outcome: nil, event: .serverClosedBeforePhoneData),
        Case(label: "data before the handshake is done never counts",
             happenings: [.answered, .data(10), .closed], outcome: nil, event: .phoneLeftDuringHandshake),
        Case(label: "our own alert after our answer → the relay's failure, no outcome",
             happenings: [.answered, .relayAlert(50)], outcome: nil, event: .relaySentAlert(alert: 50, reason: "test"),
             lastStep: .end),
        Case(label: "our own alert before our answer → dropped, the held stream goes to a plain upstream",
             happenings: [.relayAlert(70)], outcome: nil, event: .handedToPlainUpstream(reason: "test"),
             lastStep: .fallBackToPlainUpstream),
        Case(label: "a refusal of a mirrored leaf → its own validation, no notInspectable",
             happenings: [.mirror, .answered, .alert(48)], outcome: nil, event: .phoneRefusedMirroredCertificate(alert: 48),
             lastStep: .end),
        Case(label: "a mirrored leaf accepted, then data → inspected",
             happenings: [.mirror, .answered, .handshakeDone, .data(10)], outcome: .inspected, event: nil),
        Case(label: "an alert after the outcome changes nothing",
             happenings: [.answered, .alert(48), .alert(40), .closed], outcome: .notInspectable(alert: 48), event: nil),
    ])
    func outcomeFollowsWhatThePhoneDid(_ example: Case) {
        var machine = TerminationOutcome()
        var last: TerminationOutcome.Step = .carryOn
        for happening in example.happenings {
            switch happening {
            case .answered: machine.answered()
            case .handshakeDone: machine.handshakeCompleted()
            case .alert(let code): last = machine.phoneSentAlert(code)
            case .data(let count): last = machine.phoneSentData(count)
            case .closed: last = machine.phoneClosed(reset: false)
            case .reset: last = machine.phoneClosed(reset: true)
            case .serverClosed: last = machine.upstreamClosed()
            case .failed: last = machine.failed("test")
            case .relayAlert(let code): last = machine.relaySentAlert(code, reason: "test")
            case .mirror: machine.presentsMirror = true
            }
        }
        #expect(machine.outcome == example.outcome)
        #expect(machine.event == example.event)
        if let step = example.lastStep { #expect(last == step) }
    }

    @Test func theOutcomeIsSettledOnceAtTheFirstData() {
        var machine = TerminationOutcome()
        machine.answered()
        machine.handshakeCompleted()
        #expect(machine.phoneSentData(5) == .settle(.inspected))
        #expect(machine.phoneSentData(5) == .carryOn)
        #expect(machine.phoneDataBytes == 10)
    }
}
