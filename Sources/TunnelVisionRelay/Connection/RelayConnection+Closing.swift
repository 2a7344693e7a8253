import Glibc
import TunnelVisionModel

/// A spliced connection's bytes, and every way a connection ends.
extension RelayConnection {
    func pumpSplice(_ splice: RelayStage.Splice) -> Bool {
        var splice = splice
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
        if phoneEnded, upstreamOut.isEmpty, !splice.upstreamShutDown {
            splice.upstreamShutDown = true
            shutdown(upstream, Int32(SHUT_WR))
        }
        if upstreamEnded, phoneOut.isEmpty, !splice.phoneShutDown {
            splice.phoneShutDown = true
            shutdown(phone, Int32(SHUT_WR))
        }
        keep(splice)
        if phoneEnded, upstreamEnded, phoneOut.isEmpty, upstreamOut.isEmpty {
            finish()
            return false
        }
        return moved
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

    func beginClosing(reset: Bool) {
        if reset {
            finish(resetBoth: true)
            return
        }
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
            finish()
        }
        return false
    }

    func finish(resetBoth: Bool = false) {
        guard stage.kind != .closed else { return }
        // Held for its outcome once the stage has let it go.
        let termination = stage.termination
        enter(.closed)
        context.loop.remove(phone)
        if resetBoth { Sockets.reset(phone) } else { close(phone) }
        if upstream >= 0 {
            context.loop.remove(upstream)
            loopRegistry?.release(upstream)
            if resetBoth { Sockets.reset(upstream) } else { close(upstream) }
            upstream = -1
        }
        if report.event == nil, report.decision.map({ if case .splice = $0 { return false } else { return true } }) == true {
            report.event = termination?.outcome.event
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
