import TunnelVisionModel

/// How the report words what the inspection relay did with a connection.
extension EvidenceWording.Report {
    public static let relayHeading = "The inspection relay"

    /// One connection's end at the relay, from its decision, its event and what it showed the phone.
    public static func relayEvent(decision: RelayDecisionKind, event: RelayEventKind?, alert: UInt8?, presented: ShownLeafKind? = nil) -> String {
        if presented == .mirroredUntrustedIssuer, event == .closed || event == nil {
            return "Inspected: the phone sent application data over a certificate of an untrusted issuer, shown because the server's own did not verify"
        }
        switch event {
        case .phoneClosedAfterHandshake?:
            return "Handshake completed with the local CA's certificate, then closed without application data: no outcome (apps that check pins after the handshake close so)"
        case .phoneResetAfterHandshake?:
            return "Handshake completed with the local CA's certificate, then reset without application data: no outcome"
        case .phoneLeftDuringHandshake?: return "The phone closed during the handshake without an alert: no outcome"
        case .phoneClosingAlertDuringHandshake?: return "The phone sent a closing alert during the handshake: no outcome"
        case .serverClosedBeforePhoneData?: return "The server closed before the phone sent data: no outcome"
        case .upstreamUnreachable?: return "The server did not answer; the phone's connection was reset"
        case .handedToPlainUpstream?: return "The relay's TLS to the server failed before it answered; passed through untouched"
        case .relayFailed?: return "The relay failed during the connection: no outcome"
        case .relaySentAlert?:
            return "The relay ended the phone's handshake with its own TLS alert\(alert.map { " \($0)" } ?? ""): the relay's failure, no outcome"
        case .upstreamRefusedByPolicy?:
            return "The phone named a destination the relay never dials (the gateway itself, loopback, link-local or multicast); the phone's connection was reset"
        case .phoneRefusedMirroredCertificate?:
            return "The server's certificate did not verify, so the phone was shown one of an untrusted issuer; it refused\(alert.map { " with TLS alert \($0)" } ?? ""), as it would have refused the server's: no outcome"
        case .closed?, nil: break
        }
        switch decision {
        case .terminated:
            if let alert { return "The phone refused the local CA's certificate with TLS alert \(alert): not inspectable" }
        case .spliced(.hostRemembered): return "Passed through: the host refused the local CA earlier in this run of the daemon"
        case .spliced(.phoneConnectionCap):
            return "Passed through untouched: the phone already held as many connections through the relay as it takes from one phone"
        case .spliced(let reason): return "Passed through untouched (\(reason.rawValue))"
        case .undecided: break
        }
        return event == .closed ? "Inspected: the phone sent application data over the local CA's certificate" : "Terminated"
    }

    /// The session's `upstream_mirror`, as the relay ran with it.
    public static func upstreamMirror(_ mirrored: Bool) -> String {
        mirrored ? "shown to the phone as a certificate of an untrusted issuer, so that it refuses them as it would without the relay"
            : "shown to the phone with the relay's certificate all the same (upstream_mirror off)"
    }

    public static func upstreamVerification(_ verified: Bool?, presented: ShownLeafKind? = nil) -> String {
        switch (verified, presented) {
        case (false?, .mirroredUntrustedIssuer?):
            return "did not verify against the relay's trust store, so the phone was shown a certificate of an untrusted issuer in its place: the phone's own validation decided, as without the relay"
        case (false?, .unverifiedUpstreamNotMirrored?):
            return "did not verify against the relay's trust store, and the phone was shown the relay's certificate all the same (upstream_mirror off)"
        default: break
        }
        return switch verified {
        // The daemon's trust store: the system's unless upstream_trust names another.
        case true?: "verified against the relay's trust store"
        case false?: "did not verify against the relay's trust store"
        case nil: "not read"
        }
    }
}
