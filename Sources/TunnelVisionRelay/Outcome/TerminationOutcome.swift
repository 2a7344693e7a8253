/// The outcome of one termination, from what the phone did with our handshake (the outcome
/// table in `docs/ARCHITECTURE.md` § The relay).
/// Pure: the connection tells it what happened, it answers what follows.
///
/// - An alert from the phone while it reads our handshake is a refusal (`notInspectable`, the
///   code kept, the host remembered) unless it is a closing alert (close_notify, user_canceled)
///   or ech_required: those say nothing about our certificate.
/// - `inspected` needs the handshake done and application data from the phone. What we send
///   (session tickets) and what the server sends never count; neither does a closing alert.
/// - A close or reset without an alert is no outcome: after the handshake it is the fact that
///   pins checked after the handshake leave behind; during it, it has other causes.
/// - Before our first TLS byte reaches the phone nothing is lost: a failure hands the held
///   stream to a plain upstream, the phone's FIN last.
public struct TerminationOutcome: Sendable, Hashable {
    public enum Phase: Sendable, Hashable {
        /// Our TLS server has not reached the phone yet.
        case beforeAnswer
        /// Our first TLS byte reached the phone; its handshake is not done.
        case answering
        /// The phone's handshake with us is done.
        case established
        /// The termination is over (or handed to a plain upstream).
        case finished
    }

    /// What the connection does next.
    public enum Step: Sendable, Hashable {
        case carryOn
        /// The flow takes this outcome now.
        case settle(RelayOutcome)
        /// Replay the held bytes to a new plain connection to the original destination.
        case fallBackToPlainUpstream
        /// Close both sides; `event` is the fact kept.
        case end
    }

    /// Alerts that close rather than refuse: close_notify, user_canceled, ech_required.
    public static let closingAlerts: Set<UInt8> = [0, 90, 121]

    public private(set) var phase: Phase = .beforeAnswer
    public private(set) var outcome: RelayOutcome?
    public private(set) var event: RelayEvent?
    public private(set) var phoneDataBytes = 0
    /// The phone is shown a leaf that mirrors the server's failed verification: its refusal is
    /// its own validation at work, neither pinning nor a refusal to remember.
    public var presentsMirror = false

    public init() {}

    /// Our first TLS byte was written to the phone.
    public mutating func answered() {
        if phase == .beforeAnswer { phase = .answering }
    }

    public mutating func handshakeCompleted() {
        if phase == .answering || phase == .beforeAnswer { phase = .established }
    }

    public mutating func phoneSentAlert(_ code: UInt8) -> Step {
        switch phase {
        case .beforeAnswer, .answering:
            // Before our answer the phone has seen no certificate of ours to refuse.
            if phase == .beforeAnswer || Self.closingAlerts.contains(code) {
                return finish(.phoneClosingAlertDuringHandshake(alert: code))
            }
            if presentsMirror { return finish(.phoneRefusedMirroredCertificate(alert: code)) }
            outcome = .notInspectable(alert: code)
            phase = .finished
            return .settle(.notInspectable(alert: code))
        case .established:
            // After the handshake an alert is a way of closing, never a refusal of it.
            return phoneClosed(reset: false)
        case .finished:
            return .carryOn
        }
    }

    /// Decrypted application bytes from the phone.
    public mutating func phoneSentData(_ count: Int) -> Step {
        guard count > 0, phase == .established else { return .carryOn }
        phoneDataBytes = phoneDataBytes.addingReportingOverflow(count).overflow ? .max : phoneDataBytes + count
        guard outcome == nil else { return .carryOn }
        outcome = .inspected
        return .settle(.inspected)
    }

    /// The phone closed (FIN, or close_notify after the handshake) or reset its side.
    public mutating func phoneClosed(reset: Bool) -> Step {
        switch phase {
        case .beforeAnswer:
            if reset { return finish(.phoneLeftDuringHandshake) }
            event = .handedToPlainUpstream(reason: "the phone closed before the relay answered")
            phase = .finished
            return .fallBackToPlainUpstream
        case .answering:
            return finish(.phoneLeftDuringHandshake)
        case .established:
            if outcome != nil { return finish(.closed) }
            return finish(reset ? .phoneResetAfterHandshake : .phoneClosedAfterHandshake)
        case .finished:
            return .carryOn
        }
    }

    /// The server side ended after the phone's handshake: the normal end of a relayed flow.
    public mutating func upstreamClosed() -> Step {
        switch phase {
        case .beforeAnswer:
            return failed("the server closed before the relay answered")
        case .answering:
            return finish(.relayFailed(reason: "the server closed during the phone's handshake"))
        case .established:
            return finish(outcome != nil ? .closed : .serverClosedBeforePhoneData)
        case .finished:
            return .carryOn
        }
    }

    /// Our TLS server sent the phone an alert of its own and gave up. Before our answer reached the
    /// phone the alert is dropped and the held stream goes to a plain upstream, as for any failure
    /// of ours; after it, the phone has our alert: the relay's failure, never a refusal.
    public mutating func relaySentAlert(_ code: UInt8, reason: String) -> Step {
        switch phase {
        case .beforeAnswer: failed(reason)
        case .answering, .established: finish(.relaySentAlert(alert: code, reason: reason))
        case .finished: .carryOn
        }
    }

    /// Something on our side failed: the upstream TLS, minting, or our own TLS server.
    public mutating func failed(_ reason: String) -> Step {
        switch phase {
        case .beforeAnswer:
            event = .handedToPlainUpstream(reason: reason)
            phase = .finished
            return .fallBackToPlainUpstream
        case .answering, .established:
            return finish(.relayFailed(reason: reason))
        case .finished:
            return .carryOn
        }
    }

    private mutating func finish(_ fact: RelayEvent) -> Step {
        event = fact
        phase = .finished
        return .end
    }
}
