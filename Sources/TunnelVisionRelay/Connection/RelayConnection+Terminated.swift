import Glibc
import TunnelVisionModel

/// A terminated connection: the phone's handshake with us and the plaintext both ways; what
/// they report goes to the machine.
extension RelayConnection {
    func pumpTerminated(_ termination: Termination) -> Bool {
        guard let phoneSession = termination.phoneTLS else { return false }
        let upstreamSession = termination.upstreamTLS
        let limit = context.readLimit
        var moved = false
        // Past the handshake the plaintext loop below reads the phone's socket itself; before it,
        // and after the phone's close, what the phone sends is read here.
        if !phoneEnded, state.termination.isHandshaking || state.termination.phoneHalfClosed, phoneSession.pendingInput < limit {
            moved = readCiphertext(from: phone, into: phoneSession, ended: &phoneEnded, reset: &phoneWasReset) || moved
        }
        if state.termination.isHandshaking {
            let progress = phoneSession.handshake()
            if let alert = termination.phoneAlert {
                termination.phoneAlert = nil
                react(.phoneAlert(alert))
                if stage.kind != .terminated { return true }
            }
            if case .failed(let detail) = progress {
                react(.phoneHandshakeFailed(detail, relayAlert: termination.relayAlert))
                return true
            }
            moved = flushTLS(phoneSession, into: &phoneOut, descriptor: phone) || moved
            switch progress {
            case .done:
                react(.phoneHandshakeDone)
                moved = true
            case .wantsMore:
                if phoneEnded { react(.phoneEnded(reset: phoneWasReset)) ; return true }
            case .closed:
                react(.phoneHandshakeClosed)
                return true
            case .failed:
                return true
            }
            if state.termination.outcome.phase != .established { return moved }
        }
        if state.termination.phoneHalfClosed {
            if phoneWasReset {
                react(.phoneEnded(reset: true))
                return true
            }
            if upstreamOut.isEmpty { react(.upstreamQueueEmpty) }
        }
        // Phone → server: counted as the phone's application data.
        while !state.termination.phoneHalfClosed, upstreamOut.count + upstreamSession.pendingOutput < limit {
            let (count, progress) = readPlaintext(phoneSession, from: phone, ended: &phoneEnded, reset: &phoneWasReset, moved: &moved)
            if count > 0 {
                carry(count, from: .phone, into: upstreamSession)
                react(.phoneData(count))
                moved = true
                continue
            }
            if progress == .closed {
                react(.phoneCloseNotify)
                return true
            }
            if case .failed = progress {
                react(.phoneReadFailed)
                return true
            }
            break
        }
        moved = flushTLS(upstreamSession, into: &upstreamOut, descriptor: upstream) || moved
        if phoneEnded, !state.termination.phoneHalfClosed, phoneSession.pendingInput == 0 {
            react(.phoneEnded(reset: phoneWasReset))
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
                react(.serverClosedTLS)
                return true
            }
            break
        }
        moved = flushTLS(phoneSession, into: &phoneOut, descriptor: phone) || moved
        if upstreamEnded, upstreamSession.pendingInput == 0 {
            react(.serverEnded)
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
        // Only the first byte is news: the machine moves from before the answer to answering.
        if descriptor == phone, stage.kind == .terminated, state.termination.outcome.phase == .beforeAnswer { react(.answered) }
    }
}
