import COpenSSL
import Glibc
import TunnelVisionModel
import TunnelVisionWire

/// One phone connection through the relay: dial the original destination, hold the
/// ClientHello, decide, then splice or terminate. Every step is non-blocking; every buffer is
/// bounded by `limits.bufferBytes` (reading from a side stops while the other side is behind).
final class RelayConnection {
    enum Stage: Equatable {
        /// Waiting for the original destination to accept our TCP connection.
        case dialling
        case holding
        /// Our TLS client's handshake with the server.
        case upstreamHandshake
        /// Waiting for what the phone's open recording asks to be presented (read off the loop).
        case presenting
        /// Our TLS server answers the phone (the outcome machine has the phase).
        case terminated
        /// A fresh plain connection for the held stream after a failure before our answer.
        case redialling
        case splicing
        /// Flushing what is queued, then closing.
        case closing
        case closed
    }

    let context: RelayContext
    let phone: Int32
    var upstream: Int32 = -1
    let leg: RelayPhoneLeg
    /// Changed only by `enter`.
    private(set) var stage: Stage = .dialling
    var report: RelayReport
    /// Monotonic nanoseconds at which the current stage gives up.
    var deadline: Int64

    var hold: ClientHelloHold
    var reading: ClientHelloReading?
    var outcome = TerminationOutcome()
    var phoneTLS: TLSSession?
    var upstreamTLS: TLSSession?
    var phoneOut = ByteQueue()
    var upstreamOut = ByteQueue()
    var phoneEnded = false, phoneWasReset = false
    var upstreamEnded = false, upstreamWasReset = false
    var phoneShutDown = false, upstreamShutDown = false
    var announcedAnswer = false
    /// The leaf shown was made to be refused (a validation recording).
    var presentsDefect = false
    var reportedOutcome = false
    var earlyDecision: RelayDecision?
    /// An alert the phone sent, seen inside OpenSSL's callback and acted on after it returns.
    var phoneAlert: UInt8?
    /// An alert our TLS server sent the phone: the relay's failure, never the phone's answer.
    var relayAlert: UInt8?
    /// The phone sent its last byte after the handshake; the server's answer still goes to it.
    var phoneHalfClosed = false
    var upstreamShutdownPending = false
    /// Where this connection's upstream session is kept for the next connection to resume.
    var upstreamSessionKey: UpstreamSessions.Key?
    /// The requests read from the plaintext it carries (bounded there).
    let requests = ConnectionRequests()

    /// This connection's share of `context.buffered`, kept current after every pump and at the end.
    var accountedBuffers = 0

    /// Where decrypted bytes come from.
    enum Side { case phone, server }

    static let keyLogLineLimit = 32
    static let closingSeconds: Int64 = 5

    /// `overPhoneCap`: the phone already holds the relay's per-phone number of connections; this
    /// one is spliced (recorded, not inspected) unless the policy splices it for another reason.
    init(context: RelayContext, phone: Int32, leg: RelayPhoneLeg, overPhoneCap: Bool = false) {
        self.context = context
        self.phone = phone
        self.leg = leg
        report = RelayReport(phoneLeg: leg, accepted: MonotonicClock.wallNanoseconds())
        hold = ClientHelloHold(limit: context.limits.holdBytes)
        deadline = MonotonicClock.nanoseconds() + Int64(context.limits.connectSeconds * 1e9)
        earlyDecision = context.policy.decisionBeforeHold(destinationPort: leg.originalDestination.port)
            ?? (overPhoneCap ? .splice(.phoneConnectionCap) : nil)
    }

    /// Every change of stage, with the time the new stage may take before `timedOut` acts. The
    /// dials set theirs when the connect starts (`connectUpstream`).
    func enter(_ next: Stage) {
        stage = next
        switch next {
        case .dialling, .redialling, .closed: break
        case .holding: deadline = instant(after: context.limits.holdSeconds)
        case .upstreamHandshake, .presenting, .terminated: deadline = instant(after: context.limits.handshakeSeconds)
        case .splicing: deadline = instant(after: context.limits.idleSeconds)
        case .closing: deadline = MonotonicClock.nanoseconds() + Self.closingSeconds * 1_000_000_000
        }
    }

    func instant(after seconds: Double) -> Int64 {
        MonotonicClock.nanoseconds() + Int64(seconds * 1e9)
    }

    /// Past the handshakes: the connection lives while bytes move, and is closed after
    /// `idleSeconds` without one (a phone that vanished without a FIN is found by keepalive first).
    var isPastHandshakes: Bool {
        stage == .splicing || stage == .terminated && !phoneHalfClosed && outcome.phase != .beforeAnswer && outcome.phase != .answering
    }

    /// The descriptors this connection owns, for the loop's table.
    var descriptors: [Int32] { upstream >= 0 ? [phone, upstream] : [phone] }

    // MARK: Entry points from the loop

    func start() {
        dial()
    }

    func handle(descriptor: Int32, readable: Bool, writable: Bool, broken: Bool, hungUp: Bool) {
        if descriptor == upstream, stage == .dialling || stage == .redialling {
            guard writable || broken || hungUp else { return }
            finishDial()
        } else if broken || hungUp {
            // Level-triggered: a failed side is noted now, or it would wake the loop forever. A
            // side that only hung up still has its last bytes to read, unless it is not being read.
            let unread = stage == .dialling || stage == .redialling || stage == .upstreamHandshake || stage == .presenting
            if descriptor == phone, broken, !unread, let session = phoneTLS, !phoneEnded {
                // A reset often comes right behind the phone's last bytes (its alert, then a close
                // with our flight unread): what the socket still holds is read before the end is
                // noted, or a refusal would be taken for a phone that left without a word.
                var ended = false, reset = false
                while !ended, readCiphertext(from: phone, into: session, ended: &ended, reset: &reset) {}
            }
            if descriptor == phone, broken || unread {
                phoneEnded = true
                phoneWasReset = phoneWasReset || broken
            } else if descriptor == upstream, broken {
                upstreamEnded = true
                upstreamWasReset = true
            }
            if descriptor == phone, stage == .dialling || stage == .redialling {
                report.event = report.event ?? .phoneLeftDuringHandshake
                if report.decision == nil { report.decision = earlyDecision }
                finish(resetBoth: true)
                return
            }
        }
        pump()
    }

    func timedOut(now: Int64) {
        guard now >= deadline else { return }
        switch stage {
        case .dialling, .redialling:
            unreachable()
        case .holding:
            decide(.splice(.holdTimedOut))
            pump()
        case .upstreamHandshake:
            apply(outcome.failed("the server did not complete the TLS handshake in time"))
            pump()
        case .presenting:
            apply(outcome.failed("the open recording's inspection mode could not be read within \(Int(context.limits.handshakeSeconds)) s"))
            pump()
        case .closing:
            finish()
        case .terminated where phoneHalfClosed:
            beginClosing(reset: false)
            pump()
        case .terminated where !isPastHandshakes:
            apply(outcome.failed("the phone did not complete the TLS handshake within \(Int(context.limits.handshakeSeconds)) s"))
            pump()
        case .terminated, .splicing:
            // Idle: both sides get a reset, which the tap records; the outcome already reported stands.
            finish(resetBoth: true)
        case .closed:
            deadline = .max
        }
    }

    /// The relay is stopping: every connection ends with its final report.
    func abandon() {
        if report.event == nil { report.event = .relayFailed(reason: "the relay stopped") }
        finish()
    }

    /// The server's table of descriptors, so that a new upstream descriptor finds this connection.
    // The server outlives its connections (it abandons them before it ends).
    unowned var loopRegistry: ConnectionRegistry?
}

/// The loop's side of the descriptor table.
protocol ConnectionRegistry: AnyObject {
    func adopt(_ descriptor: Int32, for connection: RelayConnection)
    func release(_ descriptor: Int32)
    func forget(_ connection: RelayConnection)
}

extension RelayConnection: TLSSessionDelegate {
    func tlsSession(_ session: TLSSession, receivedAlert code: UInt8) {
        // Only the phone's alerts during our handshake are its answer to our certificate.
        guard session === phoneTLS, stage == .terminated else { return }
        if outcome.phase == .beforeAnswer || outcome.phase == .answering, phoneAlert == nil {
            phoneAlert = code
        }
    }

    func tlsSession(_ session: TLSSession, sentAlert code: UInt8) {
        guard session === phoneTLS, relayAlert == nil else { return }
        relayAlert = code
    }

    func tlsSession(_ session: TLSSession, keyLogLine line: String) {
        guard session === phoneTLS, report.keyLog.count < Self.keyLogLineLimit else { return }
        report.keyLog.append(line)
    }

    func tlsSessionSelectProtocol(_ session: TLSSession) -> String? {
        report.upstream?.applicationProtocol
    }

    func tlsSession(_ session: TLSSession, receivedResumable ticket: OpaquePointer) -> Bool {
        guard session === upstreamTLS, let upstreamSessionKey else { return false }
        return context.upstreamSessions.keep(ticket, for: upstreamSessionKey)
    }
}
