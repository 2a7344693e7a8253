import Glibc
import TunnelVisionModel

/// A terminated connection: the phone's handshake with us, the plaintext both ways, and the
/// outcome machine's steps.
extension RelayConnection {
    func pumpTerminated(_ termination: Termination) -> Bool {
        guard let phoneSession = termination.phoneTLS else { return false }
        let upstreamSession = termination.upstreamTLS
        let limit = context.readLimit
        var moved = false
        // Past the handshake the plaintext loop below reads the phone's socket itself; before it,
        // and after the phone's close, what the phone sends is read here.
        if !phoneEnded, termination.isHandshaking || termination.phoneHalfClosed, phoneSession.pendingInput < limit {
            moved = readCiphertext(from: phone, into: phoneSession, ended: &phoneEnded, reset: &phoneWasReset) || moved
        }
        if termination.isHandshaking {
            let progress = phoneSession.handshake()
            if let alert = termination.phoneAlert {
                termination.phoneAlert = nil
                apply(termination.outcome.phoneSentAlert(alert), of: termination)
                if stage.kind != .terminated { return true }
            }
            if case .failed(let detail) = progress, termination.outcome.phase == .beforeAnswer {
                // Nothing reached the phone: what OpenSSL queued (an alert of ours) is dropped.
                apply(termination.outcome.failed("our TLS server could not answer the phone's ClientHello: \(detail)"), of: termination)
                return true
            }
            moved = flushTLS(phoneSession, into: &phoneOut, descriptor: phone) || moved
            guard stage.kind == .terminated else { return true }
            switch progress {
            case .done:
                termination.outcome.handshakeCompleted()
                report.instants.handshakeCompleted = MonotonicClock.wallNanoseconds()
                moved = true
            case .wantsMore:
                if phoneEnded { apply(termination.outcome.phoneClosed(reset: phoneWasReset), of: termination) ; return true }
            case .closed:
                apply(termination.outcome.phoneClosed(reset: false), of: termination)
                return true
            case .failed(let detail):
                // The alert, if the phone sent one, was seen by the info callback first.
                if termination.outcome.phase == .finished {
                    beginClosing(reset: false)
                } else if let relayAlert = termination.relayAlert {
                    apply(termination.outcome.relaySentAlert(relayAlert, reason: "our TLS server ended the phone's handshake: \(detail)"),
                          of: termination)
                } else {
                    apply(termination.outcome.failed("the TLS handshake with the phone failed: \(detail)"), of: termination)
                }
                return true
            }
            if termination.outcome.phase != .established { return moved }
        }
        if termination.phoneHalfClosed {
            if phoneWasReset {
                beginClosing(reset: true)
                return true
            }
            if termination.upstreamShutdownPending, upstreamOut.isEmpty {
                termination.upstreamShutdownPending = false
                shutdown(upstream, Int32(SHUT_WR))
            }
        }
        // Phone → server: counted as the phone's application data.
        while !termination.phoneHalfClosed, upstreamOut.count + upstreamSession.pendingOutput < limit {
            let (count, progress) = readPlaintext(phoneSession, from: phone, ended: &phoneEnded, reset: &phoneWasReset, moved: &moved)
            if count > 0 {
                carry(count, from: .phone, into: upstreamSession)
                apply(termination.outcome.phoneSentData(count), of: termination)
                moved = true
                continue
            }
            if progress == .closed {
                phoneFinishedSending(closeNotify: true, termination)
                return true
            }
            if case .failed = progress {
                apply(termination.outcome.phoneClosed(reset: true), of: termination)
                return true
            }
            break
        }
        moved = flushTLS(upstreamSession, into: &upstreamOut, descriptor: upstream) || moved
        if phoneEnded, !termination.phoneHalfClosed, phoneSession.pendingInput == 0 {
            if phoneWasReset {
                apply(termination.outcome.phoneClosed(reset: true), of: termination)
            } else {
                phoneFinishedSending(closeNotify: false, termination)
            }
            return true
        }
        // Server → phone.
        while phoneOut.count + phoneSession.pendingOutput < limit {
            let (count, progress) = readPlaintext(upstreamSession, from: upstream, ended: &upstreamEnded, reset: &upstreamWasReset, moved: &moved)
            if count > 0 {
                carry(count, from: .server, into: phoneSession)
                moved = true
                continue
            }
            if progress != .wantsMore {
                _ = flushTLS(phoneSession, into: &phoneOut, descriptor: phone)
                if termination.phoneHalfClosed {
                    beginClosing(reset: false)
                } else {
                    apply(termination.outcome.upstreamClosed(), of: termination)
                }
                return true
            }
            break
        }
        moved = flushTLS(phoneSession, into: &phoneOut, descriptor: phone) || moved
        if upstreamEnded, upstreamSession.pendingInput == 0 {
            if termination.phoneHalfClosed {
                beginClosing(reset: upstreamWasReset)
            } else {
                apply(termination.outcome.upstreamClosed(), of: termination)
            }
            return true
        }
        return moved
    }

    /// Every decrypted byte the relay carries passes here, from the phone to the server and from
    /// the server to the phone, `count` bytes at the start of `context.plainBuffer`: the one place
    /// where this connection's plaintext (and its leg, `leg`) can be handed to a reader.
    func carry(_ count: Int, from side: Side, into session: TLSSession) {
        let plaintext = UnsafeRawBufferPointer(rebasing: context.plainBuffer[0..<count])
        switch side {
        case .phone: report.bytesFromPhone += count
        case .server: report.bytesToPhone += count
        }
        requests.read(plaintext, from: side)
        _ = session.write(plaintext)
    }

    /// The phone will send nothing more after its handshake (close_notify, or its FIN): the
    /// outcome takes the fact now, the server gets the same close, and what the server still
    /// answers reaches the phone (bounded by the closing time).
    func phoneFinishedSending(closeNotify: Bool, _ termination: Termination) {
        guard !termination.phoneHalfClosed else { return }
        _ = termination.outcome.phoneClosed(reset: false)
        report.event = termination.outcome.event
        termination.phoneHalfClosed = true
        if closeNotify {
            termination.upstreamTLS.shutdown()
            flushTLS(termination.upstreamTLS, into: &upstreamOut, descriptor: upstream)
        } else {
            termination.upstreamShutdownPending = true
        }
        deadline = MonotonicClock.nanoseconds() + Self.closingSeconds * 1_000_000_000
    }

    /// One chunk from a socket: its bytes, or nil when there were none (an end is noted).
    func readChunk(from descriptor: Int32, ended: inout Bool, reset: inout Bool) -> (bytes: UnsafeRawBufferPointer?, moved: Bool) {
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

    /// Decrypts the next plaintext of `session` into `context.plainBuffer`, OpenSSL reading
    /// `descriptor` straight into its own buffer while that side has not ended; the end it meets
    /// is noted (and counts as a move).
    func readPlaintext(
        _ session: TLSSession, from descriptor: Int32, ended: inout Bool, reset: inout Bool, moved: inout Bool
    ) -> (Int, TLSProgress) {
        let result = session.read(into: context.plainBuffer, from: ended ? -1 : descriptor)
        if let end = session.wire.end, !ended {
            ended = true
            reset = reset || end == .reset
            moved = true
        }
        return result
    }

    /// Reads what the socket has (bounded by one chunk) into a session's input.
    func readCiphertext(from descriptor: Int32, into session: TLSSession, ended: inout Bool, reset: inout Bool) -> Bool {
        let (bytes, moved) = readChunk(from: descriptor, ended: &ended, reset: &reset)
        if let bytes { session.feed(bytes) }
        return moved
    }

    /// Moves a session's output to its socket in one send, queueing what the socket does not take
    /// (the session's buffer becomes the queue: no copy). The phone's first TLS byte moves the
    /// outcome machine into `answering`.
    @discardableResult
    func flushTLS(_ session: TLSSession, into queue: inout ByteQueue, descriptor: Int32) -> Bool {
        var moved = false
        if !queue.isEmpty {
            let (written, _) = queue.flush(to: descriptor)
            if written > 0 { moved = true; noteWritten(to: descriptor) }
            if !queue.isEmpty { return moved }
        }
        guard session.pendingOutput > 0 else { return moved }
        let (written, _) = session.wire.output.flush(to: descriptor)
        if written > 0 { moved = true; noteWritten(to: descriptor) }
        if !session.wire.output.isEmpty { swap(&queue, &session.wire.output) }
        return moved
    }

    func noteWritten(to descriptor: Int32) {
        if descriptor == phone, case .terminated(let termination) = stage { termination.outcome.answered() }
    }

    // MARK: Outcome steps

    func apply(_ step: TerminationOutcome.Step, of termination: Termination) {
        switch step {
        case .carryOn:
            break
        case .settle(let settled):
            // A leaf made to be refused says nothing of the host's pinning: its refusal is not remembered.
            if case .notInspectable(let alert) = settled, let name = report.serverName, !termination.presentsDefect {
                context.refusals.remember(name, alert: alert)
            }
            settle(settled)
            if termination.outcome.phase == .finished { beginClosing(reset: false) }
        case .fallBackToPlainUpstream:
            fallBack(event: termination.outcome.event, held: termination.held)
        case .end:
            report.event = termination.outcome.event
            beginClosing(reset: phoneWasReset || upstreamWasReset)
        }
    }

    func settle(_ settled: RelayOutcome) {
        report.outcome = settled
        report.instants.outcome = MonotonicClock.wallNanoseconds()
        context.observer.relayDidReport(report)
    }
}
