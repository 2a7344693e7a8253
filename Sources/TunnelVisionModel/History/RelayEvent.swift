/// Why the relay passed a connection through untouched instead of terminating it. The raw value
/// is what findings.json writes.
public enum RelaySpliceReason: String, Sendable, Hashable, CaseIterable {
    /// The host refused the relay's certificate earlier in this run of the daemon.
    case hostRemembered
    /// The phone's first bytes were not a TLS ClientHello.
    case notTLS
    /// The ClientHello announced no server name to mint a leaf for.
    case noServerName
    /// The hold filled up before a whole ClientHello had arrived.
    case holdFull
    /// The relay could not present a certificate (minting or its own upstream failed).
    case relayFailed
}

/// What the relay saw of a TCP connection it was offered and did not see accepted. An acceptance
/// (handshake done and application data sent) is the flow's status `inspected` and nothing else.
public enum RelayEvent: Sendable, Hashable {
    /// The phone answered the relay's certificate with this TLS alert.
    case refusedWithAlert(UInt8)
    /// The phone completed the handshake and closed or reset without sending application data:
    /// a pin checked after the handshake looks exactly like this, and so does a connection not needed.
    case closedAfterHandshake
    /// The phone closed or reset during the handshake without an alert.
    case closedDuringHandshake
    /// Passed through to the server untouched.
    case spliced(RelaySpliceReason)
}
