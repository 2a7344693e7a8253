import TunnelVisionModel
import TunnelVisionWire

/// Where one relay connection is, each stage with the resources only it holds: the held bytes
/// while holding, the termination (the held bytes, both TLS sessions) from the upstream handshake
/// to the close. The facts its moves read are `RelayState`'s; the sockets, their queues and
/// whether each side ended are the connection's own: they outlive every stage.
enum RelayStage {
    /// Waiting for the original destination to accept our TCP connection.
    case dialling
    /// The phone's first bytes, held until its first message is complete.
    case holding(ClientHelloHold)
    /// Our TLS client's handshake with the server.
    case upstreamHandshake(Termination)
    /// Waiting for what the phone's open recording asks to be presented (read off the loop).
    case presenting(Termination)
    /// Our TLS server answers the phone (the outcome machine has the phase).
    case terminated(Termination)
    /// A fresh plain connection for the held stream after a failure before our answer.
    case redialling(held: [UInt8])
    /// Plain bytes both ways; each side's FIN is passed on once.
    case splicing
    /// Flushing what is queued, then closing; a termination's sessions stay until the end.
    case closing(Termination?)
    case closed

    /// The stage without its data: what the transition table and the loop's interest read.
    enum Kind: CaseIterable, Hashable {
        case dialling, holding, upstreamHandshake, presenting, terminated, redialling, splicing, closing, closed
    }

    var kind: Kind {
        switch self {
        case .dialling: .dialling
        case .holding: .holding
        case .upstreamHandshake: .upstreamHandshake
        case .presenting: .presenting
        case .terminated: .terminated
        case .redialling: .redialling
        case .splicing: .splicing
        case .closing: .closing
        case .closed: .closed
        }
    }

    /// The termination this stage carries, if it is one of a terminated connection's.
    var termination: Termination? {
        switch self {
        case .upstreamHandshake(let termination), .presenting(let termination), .terminated(let termination): termination
        case .closing(let termination): termination
        case .dialling, .holding, .redialling, .splicing, .closed: nil
        }
    }

    /// What the phone sent first, unchanged, in whichever stage holds it (none before the hold).
    var heldBytes: [UInt8] {
        switch self {
        case .holding(let hold): hold.bytes
        case .redialling(let held): held
        default: termination?.held ?? []
        }
    }

    /// What the held bytes said, once the hold has read a whole ClientHello.
    var heldReading: ClientHelloReading? {
        switch self {
        case .holding(let hold): if case .settled(let reading) = hold.state { reading } else { nil }
        default: termination?.reading
        }
    }
}

extension RelayStage.Kind {
    /// Every move a connection may make: the one table of its transitions. A dial ends in the
    /// hold, or in a splice decided before it (no early decision terminates); a termination goes
    /// back from presenting to the upstream handshake's stage while its answer is prepared (a
    /// failure there is one before the answer); a termination that failed before its answer (or
    /// could not start its TLS client) redials; everything ends, by closing or at once.
    static let successors: [Self: Set<Self>] = [
        .dialling: [.holding, .splicing, .closed],
        .holding: [.upstreamHandshake, .redialling, .splicing, .closed],
        .upstreamHandshake: [.presenting, .terminated, .redialling, .closing, .closed],
        .presenting: [.upstreamHandshake, .redialling, .closing, .closed],
        .terminated: [.redialling, .closing, .closed],
        .redialling: [.splicing, .closed],
        .splicing: [.closed],
        .closing: [.closed],
        .closed: [],
    ]

    func mayMove(to next: Self) -> Bool {
        Self.successors[self]?.contains(next) == true
    }

    /// How long a stage may take before the connection's `timedOut` acts, given the relay's
    /// limits: nil where the stage keeps the time it was given (a dial sets its own when the
    /// connect starts; the end has none).
    func timeLimit(_ limits: RelayLimits, closingSeconds: Int64) -> Double? {
        switch self {
        case .dialling, .redialling, .closed: nil
        case .holding: limits.holdSeconds
        case .upstreamHandshake, .presenting, .terminated: limits.handshakeSeconds
        case .splicing: limits.idleSeconds
        case .closing: Double(closingSeconds)
        }
    }
}

/// A termination's own resources, from our TLS client's first byte to the connection's end: what
/// the phone sent first (replayed to our TLS server, or to a plain upstream on a failure before
/// our answer) and both TLS sessions. Its facts are `RelayState.termination`.
final class Termination {
    /// The phone's first bytes, unchanged, and what they said.
    let held: [UInt8]
    let reading: ClientHelloReading?
    let upstreamTLS: TLSSession
    /// Where the upstream session is kept for the next connection to resume.
    let upstreamSessionKey: UpstreamSessions.Key
    /// Our TLS server towards the phone, once the leaf to show is known.
    var phoneTLS: TLSSession?
    /// An alert the phone sent, seen inside OpenSSL's callback and reported after it returns.
    var phoneAlert: UInt8?
    /// An alert our TLS server sent the phone: the relay's failure, never the phone's answer.
    var relayAlert: UInt8?

    init(held: [UInt8], reading: ClientHelloReading?, upstreamTLS: TLSSession, upstreamSessionKey: UpstreamSessions.Key) {
        self.held = held
        self.reading = reading
        self.upstreamTLS = upstreamTLS
        self.upstreamSessionKey = upstreamSessionKey
    }

    /// Both sessions' buffered bytes, for the relay's budget.
    var bufferedBytes: Int {
        [phoneTLS, upstreamTLS].compactMap { $0 }.reduce(0) { $0 + $1.pendingInput + $1.pendingOutput }
    }
}
