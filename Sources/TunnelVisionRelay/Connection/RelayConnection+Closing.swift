import Glibc
import TunnelVisionModel

/// A spliced connection's bytes, and every way a connection ends.
extension RelayConnection {
    func pumpSplice() -> Bool {
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
        react(.spliceRound(writeFailed: upstreamError != 0 || phoneError != 0,
                           toPhoneEmpty: phoneOut.isEmpty, toUpstreamEmpty: upstreamOut.isEmpty))
        return moved && stage.kind == .splicing
    }

    func relayPlain(from source: Int32, to target: Int32, queue: inout ByteQueue, ended: inout Bool, reset: inout Bool) -> Bool {
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

    /// The TLS sessions say close_notify, then what is queued is flushed before the sockets close.
    func beginClosing() {
        let termination = stage.termination
        termination?.phoneTLS?.shutdown()
        termination?.upstreamTLS.shutdown()
        if let phoneTLS = termination?.phoneTLS { flushTLS(phoneTLS, into: &phoneOut, descriptor: phone) }
        if let upstreamTLS = termination?.upstreamTLS, upstream >= 0 { flushTLS(upstreamTLS, into: &upstreamOut, descriptor: upstream) }
        enter(.closing(termination))
    }

    func pumpClosing() -> Bool {
        let (_, phoneError) = phoneOut.flush(to: phone)
        let upstreamError = upstream >= 0 ? upstreamOut.flush(to: upstream).error : 0
        if (phoneOut.isEmpty || phoneError != 0) && (upstreamOut.isEmpty || upstreamError != 0 || upstream < 0) {
            react(.flushed)
        }
        return false
    }

    func finish(resetBoth: Bool) {
        guard stage.kind != .closed else { return }
        enter(.closed)
        context.loop.remove(phone)
        if resetBoth { Sockets.reset(phone) } else { close(phone) }
        if upstream >= 0 {
            context.loop.remove(upstream)
            loopRegistry?.release(upstream)
            if resetBoth { Sockets.reset(upstream) } else { close(upstream) }
            upstream = -1
        }
        reportEnd()
    }

    /// The connection's final report, once its sockets are closed: the loop forgets it.
    func reportEnd() {
        report.instants.ended = MonotonicClock.wallNanoseconds()
        report.isFinal = true
        requests.finish(into: &report)
        accountBuffers()
        context.waitingForBuffers[ObjectIdentifier(self)] = nil
        context.observer.relayDidReport(report)
        loopRegistry?.forget(self)
    }

    func closeUpstream() {
        guard upstream >= 0 else { return }
        context.loop.remove(upstream)
        loopRegistry?.release(upstream)
        close(upstream)
        upstream = -1
    }
}
