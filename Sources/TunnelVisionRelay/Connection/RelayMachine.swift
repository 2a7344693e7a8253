import TunnelVisionModel

/// What a relay connection's next move depends on, without a socket or a TLS session: the stage
/// it is in and the facts the moves read. The resources each stage holds (the held bytes, both TLS
/// sessions) stay in `RelayStage`; `RelayMachine.step` reads and changes only this.
struct RelayState: Equatable {
    var kind: RelayStage.Kind = .dialling
    /// The decision that needs no byte from the phone (a port not inspected, the phone's cap).
    var early: RelayDecision?
    /// What the report says so far: the decision, and the fact kept about how the connection went.
    var decision: RelayDecision?
    var event: RelayEvent?
    /// What each socket said about its end, kept as it is read.
    var phoneEnded = false, phoneWasReset = false
    var upstreamEnded = false, upstreamWasReset = false
    /// A termination's facts, fresh at each termination's start.
    var termination = TerminationState()
    /// Which half-closes a splice has passed on.
    var phoneShutDown = false, upstreamShutDown = false
}

/// The facts of one termination that its moves read: the outcome machine, whether the leaf shown
/// was made to be refused, and the phone's half-close after its handshake.
struct TerminationState: Equatable {
    var outcome = TerminationOutcome()
    /// The leaf shown was made to be refused (a validation recording).
    var presentsDefect = false
    /// The phone sent its last byte after the handshake; the server's answer still goes to it.
    var phoneHalfClosed = false
    /// The server gets our FIN once what the phone sent before its own has reached it.
    var upstreamShutdownPending = false

    /// Our first TLS byte has not reached the phone or the phone's handshake is not done.
    var isHandshaking: Bool { outcome.phase == .beforeAnswer || outcome.phase == .answering }
}

/// What the sockets, the TLS sessions and the loop reported to a connection (the machine's
/// events; `RelayEvent` is the fact the report keeps). A socket's end is in the state already.
enum RelayInput: Equatable {
    /// The connect to the original destination is done.
    case dialled
    /// The original destination refused or never answered.
    case dialFailed
    /// A destination the relay never dials.
    case destinationRefused(DestinationRefusal)
    /// The phone's socket ended, by a reset or not.
    case phoneEnded(reset: Bool)
    /// The server sent a byte before the phone's first message was complete.
    case serverSpokeFirst
    /// The decision on the phone's first message.
    case decided(RelayDecision)
    /// Our TLS client's handshake with the server: done (`canAnswer`: a CA is loaded and the phone
    /// named the server), closed by the server, or failed.
    case upstreamHandshakeDone(canAnswer: Bool)
    case upstreamHandshakeClosed
    case upstreamHandshakeFailed(String)
    /// The server's socket ended during our TLS client's handshake.
    case upstreamEndedDuringHandshake
    /// The open recording's presentation was read (or could not be).
    case presentationArrived
    /// Our TLS server is ready to answer with this leaf.
    case answerReady(presentsDefect: Bool, mirrorsUpstream: Bool)
    /// Something on our side failed: the upstream TLS, minting, OpenSSL, reading the presentation.
    case relayFailed(String)
    /// Our first TLS byte was written to the phone.
    case answered
    /// The phone sent an alert during our handshake.
    case phoneAlert(UInt8)
    /// The phone's handshake with our TLS server: done, closed, or failed (`relayAlert`: the alert
    /// our TLS server sent the phone, if it sent one).
    case phoneHandshakeDone
    case phoneHandshakeClosed
    case phoneHandshakeFailed(String, relayAlert: UInt8?)
    /// Decrypted application bytes from the phone.
    case phoneData(Int)
    /// The phone's close_notify after its handshake, or a TLS failure reading what it sent.
    case phoneCloseNotify
    case phoneReadFailed
    /// What the phone sent before its FIN has left for the server.
    case upstreamQueueEmpty
    /// The server's TLS said its last word (close_notify or a failure), or its socket ended.
    case serverClosedTLS
    case serverEnded
    /// A splice's round: whether a write failed, and which queue is empty.
    case spliceRound(writeFailed: Bool, toPhoneEmpty: Bool, toUpstreamEmpty: Bool)
    /// Everything queued to the sockets is written (or cannot be).
    case flushed
    /// The stage's time is up (`handshakeSeconds`: the relay's limit for a handshake, which the
    /// facts of a handshake's timeout name).
    case timedOut(handshakeSeconds: Int)
    /// The relay is stopping.
    case stopping
}

/// What the connection's shell does, in order, after a step.
enum RelayAction: Equatable {
    /// The report's decision, with what the hold read and when.
    case recordDecision(RelayDecision)
    /// The report's decision without the hold's reading (a decision taken before the hold).
    case keepDecision(RelayDecision)
    /// The report's fact about how the connection went.
    case keepEvent(RelayEvent?)
    /// The report's upstream reading, from our TLS client's session.
    case recordUpstream
    /// The phone's handshake with us is done: its instant.
    case recordHandshakeCompleted
    /// The flow takes this outcome now.
    case settle(RelayOutcome)
    /// The host refused our leaf with this alert: remember it for this run.
    case rememberRefusal(alert: UInt8)
    /// Start holding the phone's first bytes.
    case hold
    /// Replay the held bytes to the upstream and copy both ways.
    case spliceHeld
    /// Start our TLS client for this server name.
    case startUpstream(serverName: String)
    /// Ask what the phone's open recording presents.
    case askPresentation
    /// Back to the upstream handshake's stage while the answer is prepared.
    case prepareAnswer
    /// Our TLS server answers the phone.
    case answer
    /// Give up the termination: a new plain connection gets the held stream.
    case fallBack
    /// Write what our TLS server queued for the phone.
    case flushPhone
    /// The server gets our close_notify, or our FIN; the phone gets our FIN.
    case closeNotifyUpstream
    case shutDownUpstream
    case shutDownPhone
    /// The connection has the closing time left.
    case allowClosingTime
    /// Flush what is queued, then close (the TLS sessions say close_notify first).
    case close
    /// Close both sockets now (`reset`: with a reset) and report the end.
    case finish(reset: Bool)
    /// Reset the phone (no upstream) and report the end.
    case resetPhone
    /// Nothing is left to time.
    case clearDeadline
}
