/// Why the relay passed a connection through untouched instead of terminating it (the relay's
/// `SpliceReason` is this type). The raw value is format: `flow_relay.decision` and
/// findings.json write it.
public enum RelaySpliceReason: String, Sendable, Hashable, CaseIterable {
    case inspectionOff
    case portNotInspected
    /// The first bytes were not TLS (plain HTTP, another protocol).
    case notTLS
    /// A TLS handshake record whose first message is not a ClientHello the reader can take
    /// (another message, or a ClientHello over the reader's 64 KiB bound).
    case unreadableClientHello
    /// A ClientHello without server_name (an SSL 2.0-format hello never has one).
    case noServerName
    /// A connection to this host refused the relay's certificate earlier in this run.
    case hostRemembered
    /// 64 KiB held and still no complete ClientHello.
    case holdFull
    /// The phone sent nothing (or not all of its ClientHello) within the hold's time.
    case holdTimedOut
    /// The phone closed its side before its first message was complete.
    case phoneClosedDuringHold
    /// The server spoke before the phone finished its first message: not a TLS client's stream.
    case serverSpokeFirst
    /// The CA could not be loaded; the relay only splices.
    case noCertificateAuthority
    /// The phone already held as many connections through the relay as it takes from one phone
    /// (`relay_connections_per_phone`): this one was passed through, recorded but not inspected.
    case phoneConnectionCap
}

/// What the relay recorded of a TCP connection it was offered and did not see accepted: the
/// fact a flow keeps beside its status. An acceptance (handshake done and application data
/// sent) is the status `inspected` and nothing else.
public enum RelayVerdict: Sendable, Hashable {
    /// The phone answered the relay's certificate with this TLS alert.
    case refused(alert: UInt8)
    /// The phone completed the handshake and closed or reset without sending application data:
    /// a pin checked after the handshake looks exactly like this, and so does a connection not needed.
    case closedAfterHandshake
    /// The phone left during the handshake without a refusing alert (a close, a reset, a closing alert).
    case closedDuringHandshake
    /// The relay's side or the server's ended the connection before the phone's answer could be read.
    case relayFailed
    /// The server's own certificate did not verify, so the phone was shown one it should refuse as
    /// well, and refused it (this alert): its own validation decided, which says nothing of pinning
    /// nor of the recording's defect.
    case refusedMirroredCertificate(alert: UInt8?)
    /// The same mirror was shown (the server's certificate did not verify) and the phone did not
    /// refuse it: with application data (status `inspected`), it continued over a certificate of
    /// an issuer no device trusts.
    case presentedMirror
    /// Passed through to the server untouched.
    case spliced(RelaySpliceReason)
}

extension RelayVerdict {
    /// Read from the relay's facts: its decision, its event and the alert, and what was
    /// presented. Nil when they say the connection was accepted over the relay's own leaf, ended
    /// normally, or was never decided.
    public init?(decision: RelayDecisionKind, event: RelayEventKind?, alert: UInt8?, presented: ShownLeafKind? = nil) {
        switch decision {
        case .spliced(let reason):
            self = .spliced(reason)
            return
        case .undecided: return nil
        case .terminated: break
        }
        switch event {
        case .phoneClosedAfterHandshake?, .phoneResetAfterHandshake?:
            self = .closedAfterHandshake
        case .phoneLeftDuringHandshake?, .phoneClosingAlertDuringHandshake?:
            // A closing alert is kept in `alert` too: it is no refusal.
            self = .closedDuringHandshake
        case .serverClosedBeforePhoneData?, .upstreamUnreachable?, .handedToPlainUpstream?, .relayFailed?,
             .relaySentAlert?, .upstreamRefusedByPolicy?:
            // The relay's own alert is kept in `alert` too: it is the relay's failure, no refusal.
            self = .relayFailed
        case .phoneRefusedMirroredCertificate?:
            self = .refusedMirroredCertificate(alert: alert)
        case nil, .closed?:
            if presented == .mirroredUntrustedIssuer, alert == nil {
                self = .presentedMirror
                return
            }
            // The alert of a terminated connection without such an event is the phone's refusal.
            guard let alert else { return nil }
            self = .refused(alert: alert)
        }
    }
}
