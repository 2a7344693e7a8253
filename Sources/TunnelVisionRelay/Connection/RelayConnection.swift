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
    private(set) var upstream: Int32 = -1
    let leg: RelayPhoneLeg
    private(set) var stage: Stage = .dialling
    private(set) var report: RelayReport
    /// Monotonic nanoseconds at which the current stage gives up.
    private(set) var deadline: Int64

    private var hold: ClientHelloHold
    private var reading: ClientHelloReading?
    private var outcome = TerminationOutcome()
    private var phoneTLS: TLSSession?
    private var upstreamTLS: TLSSession?
    private var phoneOut = ByteQueue()
    private var upstreamOut = ByteQueue()
    private var phoneEnded = false, phoneWasReset = false
    private var upstreamEnded = false, upstreamWasReset = false
    private var phoneShutDown = false, upstreamShutDown = false
    private var announcedAnswer = false
    /// The leaf shown was made to be refused (a validation recording).
    private var presentsDefect = false
    private var reportedOutcome = false
    private var earlyDecision: RelayDecision?
    /// An alert the phone sent, seen inside OpenSSL's callback and acted on after it returns.
    private var phoneAlert: UInt8?
    /// An alert our TLS server sent the phone: the relay's failure, never the phone's answer.
    private var relayAlert: UInt8?
    /// The phone sent its last byte after the handshake; the server's answer still goes to it.
    private var phoneHalfClosed = false
    private var upstreamShutdownPending = false
    /// Where this connection's upstream session is kept for the next connection to resume.
    private var upstreamSessionKey: UpstreamSessions.Key?

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

    private func instant(after seconds: Double) -> Int64 {
        MonotonicClock.nanoseconds() + Int64(seconds * 1e9)
    }

    /// Past the handshakes: the connection lives while bytes move, and is closed after
    /// `idleSeconds` without one (a phone that vanished without a FIN is found by keepalive first).
    private var isPastHandshakes: Bool {
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

    // MARK: Dialling

    private func dial() {
        let destination = leg.originalDestination.address
        if let refusal = DestinationPolicy.refusal(for: destination, local: LocalAddresses.current()) {
            refuse(refusal)
            return
        }
        switch Sockets.connect(to: leg.originalDestination, mark: context.configuration.upstreamSocketMark) {
        case .success(let descriptor):
            upstream = descriptor
            deadline = MonotonicClock.nanoseconds() + Int64(context.limits.connectSeconds * 1e9)
            context.loop.set(phone, [])
            context.loop.set(upstream, .write)
            loopRegistry?.adopt(upstream, for: self)
        case .failure:
            unreachable()
        }
    }

    private func finishDial() {
        guard Sockets.pendingError(of: upstream) == 0 else {
            unreachable()
            return
        }
        if stage == .redialling {
            hold.bytes.withUnsafeBytes { upstreamOut.append($0) }
            stage = .splicing
            deadline = instant(after: context.limits.idleSeconds)
            return
        }
        if let earlyDecision {
            decide(earlyDecision)
            return
        }
        stage = .holding
        deadline = MonotonicClock.nanoseconds() + Int64(context.limits.holdSeconds * 1e9)
    }

    /// The original destination refused or never answered: the phone gets a reset.
    private func unreachable() {
        resetPhone(.upstreamUnreachable)
    }

    /// A destination the relay never dials: the phone gets a reset, as from a closed port.
    private func refuse(_ refusal: DestinationRefusal) {
        resetPhone(.upstreamRefusedByPolicy(refusal))
    }

    private func resetPhone(_ event: RelayEvent) {
        report.event = event
        if report.decision == nil, let earlyDecision { report.decision = earlyDecision }
        closeUpstream()
        context.loop.remove(phone)
        Sockets.reset(phone)
        stage = .closed
        report.instants.ended = MonotonicClock.wallNanoseconds()
        report.isFinal = true
        accountBuffers()
        context.waitingForBuffers[ObjectIdentifier(self)] = nil
        if announcedAnswer { context.observer.relayDidRollBack(leg) }
        context.observer.relayDidReport(report)
        loopRegistry?.forget(self)
    }

    // MARK: The pump: does all that can be done now, then sets the interest

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

    /// This connection's share of `context.buffered`, kept current after every pump and at the end.
    private var accountedBuffers = 0

    private func accountBuffers() {
        var now = 0
        if stage != .closed {
            now = phoneOut.count + upstreamOut.count
            for session in [phoneTLS, upstreamTLS].compactMap({ $0 }) { now += session.pendingInput + session.pendingOutput }
        }
        context.buffered += now - accountedBuffers
        accountedBuffers = now
    }

    private func updateInterest() {
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

    private func pumpHold() -> Bool {
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

    private func decide(_ decision: RelayDecision) {
        report.decision = decision
        report.instants.decided = MonotonicClock.wallNanoseconds()
        report.serverName = reading?.serverName
        report.serverNameAsSent = reading?.serverNameAsSent
        report.offeredApplicationProtocols = reading?.offer?.applicationProtocols ?? []
        switch decision {
        case .splice(let reason):
            hold.bytes.withUnsafeBytes { upstreamOut.append($0) }
            stage = .splicing
            deadline = instant(after: context.limits.idleSeconds)
            if reason == .hostRemembered {
                settle(.notInspectableRemembered)
            }
        case .terminate(let name):
            startUpstreamTLS(serverName: name)
        }
    }

    // MARK: Upstream TLS

    private func startUpstreamTLS(serverName: String) {
        guard let session = TLSSession(context: context.tls.client) else {
            apply(outcome.failed("OpenSSL could not make a client session: \(OpenSSLSupport.lastError())"))
            return
        }
        session.delegate = self
        _ = tv_SSL_set_tlsext_host_name(session.ssl, serverName)
        _ = SSL_set1_host(session.ssl, serverName)
        let protocols = RelayTLS.wireProtocols(report.offeredApplicationProtocols)
        if !protocols.isEmpty { _ = SSL_set_alpn_protos(session.ssl, protocols, UInt32(protocols.count)) }
        let versions = RelayVersionRange(offer: reading?.offer)
        RelayTLS.apply(versions, to: session.ssl)
        let key = UpstreamSessions.Key(
            destination: leg.originalDestination.description, serverName: serverName, applicationProtocols: protocols, versions: versions)
        context.upstreamSessions.offer(key, to: session.ssl)
        upstreamSessionKey = key
        SSL_set_connect_state(session.ssl)
        upstreamTLS = session
        stage = .upstreamHandshake
        deadline = instant(after: context.limits.handshakeSeconds)
    }

    private func pumpUpstreamHandshake() -> Bool {
        guard let session = upstreamTLS else { return false }
        if phoneEnded {
            // The phone left while we dialled the server's TLS: nothing to answer, no outcome.
            apply(outcome.phoneClosed(reset: true))
            return true
        }
        var moved = readCiphertext(from: upstream, into: session, ended: &upstreamEnded, reset: &upstreamWasReset)
        let progress = session.handshake()
        moved = flushTLS(session, into: &upstreamOut, descriptor: upstream) || moved
        switch progress {
        case .done:
            upstreamEstablished(session)
            return true
        case .wantsMore:
            if upstreamEnded {
                apply(outcome.failed(upstreamWasReset ? "the server reset the connection during the TLS handshake"
                    : "the server closed the connection during the TLS handshake"))
                return true
            }
            return moved
        case .closed, .failed:
            let reason: String
            if case .failed(let detail) = progress { reason = "the TLS handshake with the server failed: \(detail)" } else {
                reason = "the server closed the TLS handshake"
            }
            apply(outcome.failed(reason))
            return true
        }
    }

    private func upstreamEstablished(_ session: TLSSession) {
        let verification = session.verifyResult
        report.upstream = UpstreamReading(
            negotiation: TLSNegotiation(
                version: TLSProtocolVersion(session.negotiatedVersion), cipherSuite: CipherSuite(session.cipherSuite),
                fromHelloRetryRequest: false, source: .upstreamConnection),
            applicationProtocol: session.selectedProtocol,
            certificateVerified: verification.verified, verification: verification.text)
        startPhoneTLS()
    }

    // MARK: Our TLS server towards the phone

    private func startPhoneTLS() {
        guard context.minter != nil, report.serverName != nil else {
            apply(outcome.failed("no CA is loaded"))
            return
        }
        stage = .presenting
        deadline = instant(after: context.limits.handshakeSeconds)
        context.presentations.ask(for: self)
    }

    /// On the loop, once the recording's presentation was read (nil: it could not be).
    func presentationArrived(_ asked: RecordingPresentation?) {
        guard stage == .presenting, let minter = context.minter, let name = report.serverName else { return }
        stage = .upstreamHandshake
        if phoneEnded {
            // The phone left while the recording was read: nothing to answer, no outcome.
            apply(outcome.phoneClosed(reset: true))
            pump()
            return
        }
        defer { pump() }
        let leaf: Leaf
        do {
            let now = Int(MonotonicClock.wallNanoseconds() / 1_000_000_000)
            let upstreamVerified = report.upstream?.certificateVerified ?? false
            let presented: PresentedLeaf
            if !upstreamVerified, context.configuration.mirrorsUnverifiedUpstream {
                // Inspection must not lower the phone's own validation: a server it would refuse
                // is shown as a certificate it refuses too.
                (leaf, presented) = try minter.mirrorLeaf(for: name, now: now)
            } else {
                guard let asked else {
                    apply(outcome.failed("the open recording's inspection mode could not be read"))
                    return
                }
                (leaf, presented) = try minter.leaf(for: name, presentation: asked, now: now)
            }
            presentsDefect = presented.defect != nil
            outcome.presentsMirror = presented.mirrorsUpstream
            report.presentation = RelayPresentation(presented, upstreamVerified: upstreamVerified)
            context.observer.relayDidPresent(presented, on: leg)
        } catch {
            apply(outcome.failed("the leaf for \(name) could not be minted: \(error)"))
            return
        }
        guard let session = TLSSession(context: context.tls.server),
              SSL_use_certificate(session.ssl, leaf.certificate) == 1,
              SSL_use_PrivateKey(session.ssl, minter.installed.leafKey) == 1
        else {
            apply(outcome.failed("OpenSSL could not make the phone's session: \(OpenSSLSupport.lastError())"))
            return
        }
        session.delegate = self
        RelayTLS.apply(RelayVersionRange(offer: reading?.offer), to: session.ssl)
        SSL_set_accept_state(session.ssl)
        hold.bytes.withUnsafeBytes { session.feed($0) }
        phoneTLS = session
        stage = .terminated
        deadline = instant(after: context.limits.handshakeSeconds)
        // RULES § 3: flagged before our first byte can be written.
        announcedAnswer = true
        context.observer.relayWillAnswer(leg)
    }

    private func pumpTerminated() -> Bool {
        guard let phoneSession = phoneTLS, let upstreamSession = upstreamTLS else { return false }
        let limit = context.readLimit
        var moved = false
        if !phoneEnded, phoneSession.pendingInput < limit {
            moved = readCiphertext(from: phone, into: phoneSession, ended: &phoneEnded, reset: &phoneWasReset) || moved
        }
        if outcome.phase == .beforeAnswer || outcome.phase == .answering {
            let progress = phoneSession.handshake()
            if let alert = phoneAlert {
                phoneAlert = nil
                apply(outcome.phoneSentAlert(alert))
                if stage != .terminated { return true }
            }
            if case .failed(let detail) = progress, outcome.phase == .beforeAnswer {
                // Nothing reached the phone: what OpenSSL queued (an alert of ours) is dropped.
                apply(outcome.failed("our TLS server could not answer the phone's ClientHello: \(detail)"))
                return true
            }
            moved = flushTLS(phoneSession, into: &phoneOut, descriptor: phone) || moved
            guard stage == .terminated else { return true }
            switch progress {
            case .done:
                outcome.handshakeCompleted()
                report.instants.handshakeCompleted = MonotonicClock.wallNanoseconds()
                moved = true
            case .wantsMore:
                if phoneEnded { apply(outcome.phoneClosed(reset: phoneWasReset)) ; return true }
            case .closed:
                apply(outcome.phoneClosed(reset: false))
                return true
            case .failed(let detail):
                // The alert, if the phone sent one, was seen by the info callback first.
                if outcome.phase == .finished {
                    beginClosing(reset: false)
                } else if let relayAlert {
                    apply(outcome.relaySentAlert(relayAlert, reason: "our TLS server ended the phone's handshake: \(detail)"))
                } else {
                    apply(outcome.failed("the TLS handshake with the phone failed: \(detail)"))
                }
                return true
            }
            if outcome.phase != .established { return moved }
        }
        if phoneHalfClosed {
            if phoneWasReset {
                beginClosing(reset: true)
                return true
            }
            if upstreamShutdownPending, upstreamOut.isEmpty {
                upstreamShutdownPending = false
                shutdown(upstream, Int32(SHUT_WR))
            }
        }
        // Phone → server: counted as the phone's application data.
        while !phoneHalfClosed, upstreamOut.count + upstreamSession.pendingOutput < limit {
            let (count, progress) = phoneSession.read(into: context.plainBuffer)
            if count > 0 {
                report.bytesFromPhone += count
                _ = upstreamSession.write(UnsafeRawBufferPointer(rebasing: context.plainBuffer[0..<count]))
                apply(outcome.phoneSentData(count))
                moved = true
                continue
            }
            if progress == .closed {
                phoneFinishedSending(closeNotify: true)
                return true
            }
            if case .failed = progress {
                apply(outcome.phoneClosed(reset: true))
                return true
            }
            break
        }
        moved = flushTLS(upstreamSession, into: &upstreamOut, descriptor: upstream) || moved
        if phoneEnded, !phoneHalfClosed, phoneSession.pendingInput == 0 {
            if phoneWasReset { apply(outcome.phoneClosed(reset: true)) } else { phoneFinishedSending(closeNotify: false) }
            return true
        }
        // Server → phone.
        if !upstreamEnded, upstreamSession.pendingInput < limit {
            moved = readCiphertext(from: upstream, into: upstreamSession, ended: &upstreamEnded, reset: &upstreamWasReset) || moved
        }
        while phoneOut.count + phoneSession.pendingOutput < limit {
            let (count, progress) = upstreamSession.read(into: context.plainBuffer)
            if count > 0 {
                report.bytesToPhone += count
                _ = phoneSession.write(UnsafeRawBufferPointer(rebasing: context.plainBuffer[0..<count]))
                moved = true
                continue
            }
            if progress != .wantsMore {
                _ = flushTLS(phoneSession, into: &phoneOut, descriptor: phone)
                if phoneHalfClosed { beginClosing(reset: false) } else { apply(outcome.upstreamClosed()) }
                return true
            }
            break
        }
        moved = flushTLS(phoneSession, into: &phoneOut, descriptor: phone) || moved
        if upstreamEnded, upstreamSession.pendingInput == 0 {
            if phoneHalfClosed { beginClosing(reset: upstreamWasReset) } else { apply(outcome.upstreamClosed()) }
            return true
        }
        return moved
    }

    /// The phone will send nothing more after its handshake (close_notify, or its FIN): the
    /// outcome takes the fact now, the server gets the same close, and what the server still
    /// answers reaches the phone (bounded by the closing time).
    private func phoneFinishedSending(closeNotify: Bool) {
        guard !phoneHalfClosed else { return }
        _ = outcome.phoneClosed(reset: false)
        report.event = outcome.event
        phoneHalfClosed = true
        if closeNotify, let upstreamTLS {
            upstreamTLS.shutdown()
            flushTLS(upstreamTLS, into: &upstreamOut, descriptor: upstream)
        } else {
            upstreamShutdownPending = true
        }
        deadline = MonotonicClock.nanoseconds() + Self.closingSeconds * 1_000_000_000
    }

    /// One chunk from a socket: its bytes, or nil when there were none (an end is noted).
    private func readChunk(from descriptor: Int32, ended: inout Bool, reset: inout Bool) -> (bytes: UnsafeRawBufferPointer?, moved: Bool) {
        switch Descriptors.read(descriptor, into: context.wireBuffer) {
        case .bytes(let count):
            return (UnsafeRawBufferPointer(rebasing: context.wireBuffer[0..<count]), true)
        case .wouldBlock:
            return (nil, false)
        case .endOfFile:
            ended = true
            return (nil, true)
        case .reset:
            ended = true
            reset = true
            return (nil, true)
        }
    }

    /// Reads what the socket has (bounded by one chunk) into a session's input.
    private func readCiphertext(from descriptor: Int32, into session: TLSSession, ended: inout Bool, reset: inout Bool) -> Bool {
        let (bytes, moved) = readChunk(from: descriptor, ended: &ended, reset: &reset)
        if let bytes { session.feed(bytes) }
        return moved
    }

    /// Moves a session's output to its socket, queueing what the socket does not take.
    /// The phone's first TLS byte moves the outcome machine into `answering`.
    @discardableResult
    private func flushTLS(_ session: TLSSession, into queue: inout ByteQueue, descriptor: Int32) -> Bool {
        var moved = false
        if !queue.isEmpty {
            let (written, _) = queue.flush(to: descriptor)
            if written > 0 { moved = true; noteWritten(to: descriptor) }
            if !queue.isEmpty { return moved }
        }
        while session.pendingOutput > 0 {
            let count = session.takeOutput(into: context.wireBuffer)
            guard count > 0 else { break }
            let chunk = UnsafeRawBufferPointer(rebasing: context.wireBuffer[0..<count])
            let written = Descriptors.write(descriptor, chunk)
            if written > 0 { moved = true; noteWritten(to: descriptor) }
            if written < count {
                queue.append(UnsafeRawBufferPointer(rebasing: chunk[max(written, 0)...]))
                break
            }
        }
        return moved
    }

    private func noteWritten(to descriptor: Int32) {
        if descriptor == phone, stage == .terminated { outcome.answered() }
    }

    // MARK: Outcome steps

    private func apply(_ step: TerminationOutcome.Step) {
        switch step {
        case .carryOn:
            break
        case .settle(let settled):
            // A leaf made to be refused says nothing of the host's pinning: its refusal is not remembered.
            if case .notInspectable(let alert) = settled, let name = report.serverName, !presentsDefect {
                context.refusals.remember(name, alert: alert)
            }
            settle(settled)
            if outcome.phase == .finished { beginClosing(reset: false) }
        case .fallBackToPlainUpstream:
            fallBack()
        case .end:
            report.event = outcome.event
            beginClosing(reset: phoneWasReset || upstreamWasReset)
        }
    }

    private func settle(_ settled: RelayOutcome) {
        report.outcome = settled
        report.instants.outcome = MonotonicClock.wallNanoseconds()
        reportedOutcome = true
        context.observer.relayDidReport(report)
    }

    /// Before our first byte reached the phone: a new plain connection gets the held stream.
    private func fallBack() {
        report.event = outcome.event
        phoneTLS = nil
        upstreamTLS = nil
        phoneOut = ByteQueue()
        upstreamOut = ByteQueue()
        closeUpstream()
        upstreamEnded = false
        upstreamWasReset = false
        if announcedAnswer {
            announcedAnswer = false
            context.observer.relayDidRollBack(leg)
        }
        stage = .redialling
        switch Sockets.connect(to: leg.originalDestination, mark: context.configuration.upstreamSocketMark) {
        case .success(let descriptor):
            upstream = descriptor
            deadline = MonotonicClock.nanoseconds() + Int64(context.limits.connectSeconds * 1e9)
            loopRegistry?.adopt(upstream, for: self)
            context.loop.set(phone, [])
            context.loop.set(upstream, .write)
        case .failure:
            unreachable()
        }
    }

    // MARK: Splicing

    private func pumpSplice() -> Bool {
        let limit = context.readLimit
        var moved = false
        if !phoneEnded, upstreamOut.count < limit {
            moved = relayPlain(from: phone, to: upstream, queue: &upstreamOut, ended: &phoneEnded, reset: &phoneWasReset) || moved
        }
        if !upstreamEnded, phoneOut.count < limit {
            moved = relayPlain(from: upstream, to: phone, queue: &phoneOut, ended: &upstreamEnded, reset: &upstreamWasReset) || moved
        }
        let (toUpstream, upstreamError) = upstreamOut.flush(to: upstream)
        let (toPhone, phoneError) = phoneOut.flush(to: phone)
        moved = moved || toUpstream > 0 || toPhone > 0
        if phoneWasReset || upstreamWasReset || upstreamError != 0 || phoneError != 0 {
            finish(resetBoth: true)
            return false
        }
        // Half-closes pass through once the queue behind them has drained (the FIN last).
        if phoneEnded, upstreamOut.isEmpty, !upstreamShutDown {
            upstreamShutDown = true
            shutdown(upstream, Int32(SHUT_WR))
        }
        if upstreamEnded, phoneOut.isEmpty, !phoneShutDown {
            phoneShutDown = true
            shutdown(phone, Int32(SHUT_WR))
        }
        if phoneEnded, upstreamEnded, phoneOut.isEmpty, upstreamOut.isEmpty {
            finish()
            return false
        }
        return moved
    }

    private func relayPlain(from source: Int32, to target: Int32, queue: inout ByteQueue, ended: inout Bool, reset: inout Bool) -> Bool {
        let (read, moved) = readChunk(from: source, ended: &ended, reset: &reset)
        guard let chunk = read else { return moved }
        if source == phone { report.bytesFromPhone += chunk.count } else { report.bytesToPhone += chunk.count }
        if queue.isEmpty {
            let written = Descriptors.write(target, chunk)
            if written < chunk.count { queue.append(UnsafeRawBufferPointer(rebasing: chunk[max(written, 0)...])) }
        } else {
            queue.append(chunk)
        }
        return true
    }

    // MARK: Closing

    private func beginClosing(reset: Bool) {
        if reset {
            finish(resetBoth: true)
            return
        }
        phoneTLS?.shutdown()
        upstreamTLS?.shutdown()
        if let phoneTLS { flushTLS(phoneTLS, into: &phoneOut, descriptor: phone) }
        if let upstreamTLS, upstream >= 0 { flushTLS(upstreamTLS, into: &upstreamOut, descriptor: upstream) }
        stage = .closing
        deadline = MonotonicClock.nanoseconds() + Self.closingSeconds * 1_000_000_000
    }

    private func pumpClosing() -> Bool {
        let (_, phoneError) = phoneOut.flush(to: phone)
        let upstreamError = upstream >= 0 ? upstreamOut.flush(to: upstream).error : 0
        if (phoneOut.isEmpty || phoneError != 0) && (upstreamOut.isEmpty || upstreamError != 0 || upstream < 0) {
            finish()
        }
        return false
    }

    private func finish(resetBoth: Bool = false) {
        guard stage != .closed else { return }
        stage = .closed
        context.loop.remove(phone)
        if resetBoth { Sockets.reset(phone) } else { close(phone) }
        if upstream >= 0 {
            context.loop.remove(upstream)
            loopRegistry?.release(upstream)
            if resetBoth { Sockets.reset(upstream) } else { close(upstream) }
            upstream = -1
        }
        phoneTLS = nil
        upstreamTLS = nil
        if report.event == nil, report.decision.map({ if case .splice = $0 { return false } else { return true } }) == true {
            report.event = outcome.event
        }
        report.instants.ended = MonotonicClock.wallNanoseconds()
        report.isFinal = true
        accountBuffers()
        context.waitingForBuffers[ObjectIdentifier(self)] = nil
        context.observer.relayDidReport(report)
        loopRegistry?.forget(self)
    }

    private func closeUpstream() {
        guard upstream >= 0 else { return }
        context.loop.remove(upstream)
        loopRegistry?.release(upstream)
        close(upstream)
        upstream = -1
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
