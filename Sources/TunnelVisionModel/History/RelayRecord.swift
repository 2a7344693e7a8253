/// Why the relay passed a connection through untouched instead of terminating it. The raw
/// value is format (findings.json writes it); the cases are the relay's own reasons.
public enum RelaySpliceReason: String, Sendable, Hashable, CaseIterable {
    case inspectionOff
    case portNotInspected
    /// The phone's first bytes were not TLS.
    case notTLS
    /// A TLS handshake record whose first message is not a ClientHello the reader can take.
    case unreadableClientHello
    /// The ClientHello announced no server name to mint a leaf for.
    case noServerName
    /// The host refused the relay's certificate earlier in this run of the daemon.
    case hostRemembered
    /// The hold filled up before a whole ClientHello had arrived.
    case holdFull
    /// The phone did not finish its ClientHello within the hold's time.
    case holdTimedOut
    /// The phone closed its side before its first message was complete.
    case phoneClosedDuringHold
    /// The server spoke before the phone finished its first message.
    case serverSpokeFirst
    /// No CA was loaded.
    case noCertificateAuthority
}

/// What the relay recorded of a TCP connection it was offered and did not see accepted: the
/// fact a flow keeps beside its status. An acceptance (handshake done and application data
/// sent) is the status `inspected` and nothing else.
public enum RelayRecord: Sendable, Hashable {
    /// The phone answered the relay's certificate with this TLS alert.
    case refused(alert: UInt8)
    /// The phone completed the handshake and closed or reset without sending application data:
    /// a pin checked after the handshake looks exactly like this, and so does a connection not needed.
    case closedAfterHandshake
    /// The phone left during the handshake without a refusing alert (a close, a reset, a closing alert).
    case closedDuringHandshake
    /// The relay's side or the server's ended the connection before the phone's answer could be read.
    case relayFailed
    /// Passed through to the server untouched.
    case spliced(RelaySpliceReason)
}

extension RelayRecord {
    /// Read from the relay's facts as `flow_relay` keeps them (issue 12): its decision
    /// ("terminated", "spliced.<reason>"), its event's kind and the alert. Nil when they say the
    /// connection was accepted, ended normally, or in words this version does not know.
    public init?(decision: String, event: String?, alert: UInt8?) {
        if decision.hasPrefix("spliced.") {
            guard let reason = RelaySpliceReason(rawValue: String(decision.dropFirst("spliced.".count))) else { return nil }
            self = .spliced(reason)
            return
        }
        guard decision == "terminated" else { return nil }
        switch event {
        case "phoneClosedAfterHandshake", "phoneResetAfterHandshake":
            self = .closedAfterHandshake
        case "phoneLeftDuringHandshake", "phoneClosingAlertDuringHandshake":
            // A closing alert is kept in `alert` too: it is no refusal.
            self = .closedDuringHandshake
        case "serverClosedBeforePhoneData", "upstreamUnreachable", "handedToPlainUpstream", "relayFailed":
            self = .relayFailed
        case nil, "closed"?:
            // The alert of a terminated connection without such an event is the phone's refusal.
            guard let alert else { return nil }
            self = .refused(alert: alert)
        default:
            return nil
        }
    }
}
