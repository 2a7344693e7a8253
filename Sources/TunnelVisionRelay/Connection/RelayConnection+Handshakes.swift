import COpenSSL
import Glibc
import TunnelVisionModel
import TunnelVisionWire

/// A termination's two handshakes: ours with the server, then, once the leaf to show is
/// known, our TLS server's with the phone.
extension RelayConnection {
    func startUpstreamTLS(serverName: String) {
        guard let session = TLSSession(context: context.tls.client) else {
            // No termination began: a failure before our answer, with the hold still in its stage.
            react(.relayFailed("OpenSSL could not make a client session: \(OpenSSLSupport.lastError())"))
            return
        }
        let held = stage.heldBytes, reading = stage.heldReading
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
            react(.phoneEnded(reset: phoneWasReset))
            return true
        }
        var moved = readCiphertext(from: upstream, into: session, ended: &upstreamEnded, reset: &upstreamWasReset)
        let progress = session.handshake()
        moved = flushTLS(session, into: &upstreamOut, descriptor: upstream) || moved
        switch progress {
        case .done:
            react(.upstreamHandshakeDone(canAnswer: context.minter != nil && report.serverName != nil))
        case .wantsMore:
            guard upstreamEnded else { return moved }
            react(.upstreamEndedDuringHandshake)
        case .closed:
            react(.upstreamHandshakeClosed)
        case .failed(let detail):
            react(.upstreamHandshakeFailed(detail))
        }
        return true
    }

    // MARK: Our TLS server towards the phone

    /// On the loop, once the recording's presentation was read (nil: it could not be).
    func presentationArrived(_ asked: RequestedLeaf?) {
        guard case .presenting(let termination) = stage, let minter = context.minter, let name = report.serverName else { return }
        defer { pump() }
        react(.presentationArrived)
        // The phone left while the recording was read: nothing to answer, no outcome.
        guard stage.kind == .upstreamHandshake else { return }
        requests.begin(keepingPaths: asked?.keepsRequestPaths == true)
        let leaf: Leaf, presented: ShownLeaf
        do {
            let now = Int(MonotonicClock.wallNanoseconds() / 1_000_000_000)
            let upstreamVerified = report.upstream?.certificateVerified ?? false
            if !upstreamVerified, context.configuration.mirrorsUnverifiedUpstream {
                // Inspection must not lower the phone's own validation: a server it would refuse
                // is shown as a certificate it refuses too.
                (leaf, presented) = try minter.mirrorLeaf(for: name, now: now)
            } else {
                guard let asked else {
                    react(.relayFailed("the open recording's inspection mode could not be read"))
                    return
                }
                (leaf, presented) = try minter.leaf(for: name, presentation: asked, now: now)
            }
            report.presentation = ShownLeafKind(presented, upstreamVerified: upstreamVerified)
            context.observer.relayDidPresent(presented, on: leg)
        } catch {
            react(.relayFailed("the leaf for \(name) could not be minted: \(error)"))
            return
        }
        guard let session = TLSSession(context: context.tls.server),
              SSL_use_certificate(session.ssl, leaf.certificate) == 1,
              SSL_use_PrivateKey(session.ssl, minter.installed.leafKey) == 1
        else {
            react(.relayFailed("OpenSSL could not make the phone's session: \(OpenSSLSupport.lastError())"))
            return
        }
        session.delegate = self
        RelayTLS.apply(RelayVersionRange(offer: termination.reading?.offer), to: session.ssl)
        SSL_set_accept_state(session.ssl)
        termination.held.withUnsafeBytes { session.feed($0) }
        termination.phoneTLS = session
        react(.answerReady(presentsDefect: presented.defect != nil, mirrorsUpstream: presented.mirrorsUpstream))
    }
}
