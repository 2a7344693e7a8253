import COpenSSL
import Glibc
import TunnelVisionModel
import TunnelVisionWire

/// One phone connection through the relay: dial the original destination, hold the
/// ClientHello, decide, then splice or terminate. Every step is non-blocking; every buffer is
/// bounded by `limits.bufferBytes` (reading from a side stops while the other side is behind).
final class RelayConnection {
    let context: RelayContext
    let phone: Int32
    var upstream: Int32 = -1
    let leg: RelayPhoneLeg
    /// Changed only by `enter`, and within a stage by `keep`.
    private(set) var stage: RelayStage = .dialling
    /// What the moves read; changed by `react` (and a socket's end as it is read).
    private(set) var state = RelayState()
    var report: RelayReport
    /// Monotonic nanoseconds at which the current stage gives up.
    var deadline: Int64

    // The two sockets' own facts, which outlive every stage: what waits to be written to each,
    // and whether each side ended (and how: kept in the state, which the moves read).
    var phoneOut = ByteQueue()
    var upstreamOut = ByteQueue()
    var phoneEnded: Bool { get { state.phoneEnded } set { state.phoneEnded = newValue } }
    var phoneWasReset: Bool { get { state.phoneWasReset } set { state.phoneWasReset = newValue } }
    var upstreamEnded: Bool { get { state.upstreamEnded } set { state.upstreamEnded = newValue } }
    var upstreamWasReset: Bool { get { state.upstreamWasReset } set { state.upstreamWasReset = newValue } }
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
        deadline = MonotonicClock.nanoseconds() + Int64(context.limits.connectSeconds * 1e9)
        state.early = context.policy.decisionBeforeHold(destinationPort: leg.originalDestination.port)
            ?? (overPhoneCap ? .splice(.phoneConnectionCap) : nil)
    }

    /// Every choice goes through here: the machine says what follows from what the sockets or
    /// TLS sessions reported, and the connection does it.
    func react(_ input: RelayInput) {
        let (next, actions) = RelayMachine.step(state, input)
        state = next
        for action in actions { perform(action) }
    }

    /// Every change of stage goes through here, as an action of the machine's: a move the
    /// transition table does not have is a fault of the relay's (caught by the tests), and the new
    /// stage gets the time it may take before `timedOut` acts. The dials set theirs when the
    /// connect starts (`connectUpstream`).
    func enter(_ next: RelayStage) {
        assert(stage.kind.mayMove(to: next.kind), "a relay connection cannot move from \(stage.kind) to \(next.kind)")
        assert(next.kind == state.kind, "the relay's machine chose \(state.kind), the connection entered \(next.kind)")
        stage = next
        if let seconds = next.kind.timeLimit(context.limits, closingSeconds: Self.closingSeconds) {
            deadline = instant(after: seconds)
        }
    }

    /// The hold, taken out of its stage while it changes so that its bytes are not copied;
    /// `keep` puts it back.
    func takeHold() -> ClientHelloHold? {
        guard case .holding(let hold) = stage else { return nil }
        stage = .holding(ClientHelloHold(limit: 0))
        return hold
    }

    /// New data for the stage the connection is in: no transition.
    func keep(_ hold: ClientHelloHold) {
        if case .holding = stage { stage = .holding(hold) }
    }

    func instant(after seconds: Double) -> Int64 {
        MonotonicClock.nanoseconds() + Int64(seconds * 1e9)
    }

    /// Past the handshakes: the connection lives while bytes move, and is closed after
    /// `idleSeconds` without one (a phone that vanished without a FIN is found by keepalive first).
    var isPastHandshakes: Bool {
        switch stage {
        case .splicing: true
        case .terminated: !state.termination.phoneHalfClosed && !state.termination.isHandshaking
        default: false
        }
    }

    /// The descriptors this connection owns, for the loop's table.
    var descriptors: [Int32] { upstream >= 0 ? [phone, upstream] : [phone] }

    var isDialling: Bool { stage.kind == .dialling || stage.kind == .redialling }

    // MARK: Entry points from the loop

    func start() {
        dial()
    }

    func handle(descriptor: Int32, readable: Bool, writable: Bool, broken: Bool, hungUp: Bool) {
        if descriptor == upstream, isDialling {
            guard writable || broken || hungUp else { return }
            finishDial()
        } else if broken || hungUp {
            // Level-triggered: a failed side is noted now, or it would wake the loop forever. A
            // side that only hung up still has its last bytes to read, unless it is not being read.
            let unread = isDialling || stage.kind == .upstreamHandshake || stage.kind == .presenting
            if descriptor == phone, broken, !unread, let session = stage.termination?.phoneTLS, !phoneEnded {
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
            if descriptor == phone, isDialling {
                react(.phoneEnded(reset: true))
                return
            }
        }
        pump()
    }

    func timedOut(now: Int64) {
        guard now >= deadline else { return }
        react(.timedOut(handshakeSeconds: Int(context.limits.handshakeSeconds)))
        if stage.kind != .closed { pump() }
    }

    /// The relay is stopping: every connection ends with its final report.
    func abandon() {
        react(.stopping)
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
        guard case .terminated(let termination) = stage, session === termination.phoneTLS else { return }
        if state.termination.isHandshaking, termination.phoneAlert == nil {
            termination.phoneAlert = code
        }
    }

    func tlsSession(_ session: TLSSession, sentAlert code: UInt8) {
        guard let termination = stage.termination, session === termination.phoneTLS, termination.relayAlert == nil else { return }
        termination.relayAlert = code
    }

    func tlsSession(_ session: TLSSession, keyLogLine line: String) {
        guard session === stage.termination?.phoneTLS, report.keyLog.count < Self.keyLogLineLimit else { return }
        report.keyLog.append(line)
    }

    func tlsSessionSelectProtocol(_ session: TLSSession) -> String? {
        report.upstream?.applicationProtocol
    }

    func tlsSession(_ session: TLSSession, receivedResumable ticket: OpaquePointer) -> Bool {
        guard let termination = stage.termination, session === termination.upstreamTLS else { return false }
        return context.upstreamSessions.keep(ticket, for: termination.upstreamSessionKey)
    }
}
