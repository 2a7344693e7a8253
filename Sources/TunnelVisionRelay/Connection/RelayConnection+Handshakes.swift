import COpenSSL
import Glibc
import TunnelVisionModel
import TunnelVisionWire

/// A termination's two handshakes: ours with the server, then, once the leaf to show is
/// known, our TLS server's with the phone.
extension RelayConnection {
    func startUpstreamTLS(serverName: String, held: [UInt8], reading: ClientHelloReading?) {
        guard let session = TLSSession(context: context.tls.client) else {
            // No termination began: its outcome machine, fresh, says what a failure before our
            // answer is.
            var outcome = TerminationOutcome()
            _ = outcome.failed("OpenSSL could not make a client session: \(OpenSSLSupport.lastError())")
            fallBack(event: outcome.event, held: held)
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
        SSL_set_connect_state(session.ssl)
        enter(.upstreamHandshake(Termination(held: held, reading: reading, upstreamTLS: session, upstreamSessionKey: key)))
    }

    func pumpUpstreamHandshake(_ termination: Termination) -> Bool {
        let session = termination.upstreamTLS
        if phoneEnded {
            // The phone left while we dialled the server's TLS: nothing to answer, no outcome.
            apply(termination.outcome.phoneClosed(reset: true), of: termination)
            return true
        }
        var moved = readCiphertext(from: upstream, into: session, ended: &upstreamEnded, reset: &upstreamWasReset)
        let progress = session.handshake()
        moved = flushTLS(session, into: &upstreamOut, descriptor: upstream) || moved
        switch progress {
        case .done:
            upstreamEstablished(termination)
            return true
        case .wantsMore:
            if upstreamEnded {
                apply(termination.outcome.failed(upstreamWasReset ? "the server reset the connection during the TLS handshake"
                    : "the server closed the connection during the TLS handshake"), of: termination)
                return true
            }
            return moved
        case .closed, .failed:
            let reason: String
            if case .failed(let detail) = progress { reason = "the TLS handshake with the server failed: \(detail)" } else {
                reason = "the server closed the TLS handshake"
            }
            apply(termination.outcome.failed(reason), of: termination)
            return true
        }
    }

    func upstreamEstablished(_ termination: Termination) {
        let session = termination.upstreamTLS
        let verification = session.verifyResult
        report.upstream = UpstreamReading(
            negotiation: TLSNegotiation(
                version: TLSProtocolVersion(session.negotiatedVersion), cipherSuite: CipherSuite(session.cipherSuite),
                fromHelloRetryRequest: false, source: .upstreamConnection),
            applicationProtocol: session.selectedProtocol,
            certificateVerified: verification.verified, verification: verification.text)
        startPhoneTLS(termination)
    }

    // MARK: Our TLS server towards the phone

    func startPhoneTLS(_ termination: Termination) {
        guard context.minter != nil, report.serverName != nil else {
            apply(termination.outcome.failed("no CA is loaded"), of: termination)
            return
        }
        enter(.presenting(termination))
        context.presentations.ask(for: self)
    }

    /// On the loop, once the recording's presentation was read (nil: it could not be).
    func presentationArrived(_ asked: RequestedLeaf?) {
        guard case .presenting(let termination) = stage, let minter = context.minter, let name = report.serverName else { return }
        // Back to the upstream handshake's stage while the answer is prepared: a failure from here
        // is one before the answer, and every way out sets its own stage.
        enter(.upstreamHandshake(termination))
        if phoneEnded {
            // The phone left while the recording was read: nothing to answer, no outcome.
            apply(termination.outcome.phoneClosed(reset: true), of: termination)
            pump()
            return
        }
        defer { pump() }
        requests.begin(keepingPaths: asked?.keepsRequestPaths == true)
        let leaf: Leaf
        do {
            let now = Int(MonotonicClock.wallNanoseconds() / 1_000_000_000)
            let upstreamVerified = report.upstream?.certificateVerified ?? false
            let presented: ShownLeaf
            if !upstreamVerified, context.configuration.mirrorsUnverifiedUpstream {
                // Inspection must not lower the phone's own validation: a server it would refuse
                // is shown as a certificate it refuses too.
                (leaf, presented) = try minter.mirrorLeaf(for: name, now: now)
            } else {
                guard let asked else {
                    apply(termination.outcome.failed("the open recording's inspection mode could not be read"), of: termination)
                    return
                }
                (leaf, presented) = try minter.leaf(for: name, presentation: asked, now: now)
            }
            termination.presentsDefect = presented.defect != nil
            termination.outcome.presentsMirror = presented.mirrorsUpstream
            report.presentation = ShownLeafKind(presented, upstreamVerified: upstreamVerified)
            context.observer.relayDidPresent(presented, on: leg)
        } catch {
            apply(termination.outcome.failed("the leaf for \(name) could not be minted: \(error)"), of: termination)
            return
        }
        guard let session = TLSSession(context: context.tls.server),
              SSL_use_certificate(session.ssl, leaf.certificate) == 1,
              SSL_use_PrivateKey(session.ssl, minter.installed.leafKey) == 1
        else {
            apply(termination.outcome.failed("OpenSSL could not make the phone's session: \(OpenSSLSupport.lastError())"), of: termination)
            return
        }
        session.delegate = self
        RelayTLS.apply(RelayVersionRange(offer: termination.reading?.offer), to: session.ssl)
        SSL_set_accept_state(session.ssl)
        termination.held.withUnsafeBytes { session.feed($0) }
        termination.phoneTLS = session
        enter(.terminated(termination))
        // Told before our first byte can be written, so the flow engine never takes our own
        // ServerHello for the server's.
        context.observer.relayWillAnswer(leg)
    }
}
