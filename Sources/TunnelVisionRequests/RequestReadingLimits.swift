/// The request reader's bounds: what it holds between reads, how many requests it follows at
/// once, and how long a kept text may be. Its memory is at most about `heldBytes` per direction
/// plus one read, `openRequests` requests of at most `fieldBytes` each, and HPACK's two dynamic
/// tables of at most `headerTableBytes` each.
public struct RequestReadingLimits: Sendable, Hashable {
    /// The most bytes of one incomplete unit (an HTTP/1.1 header section, a chunk-size line, an
    /// HTTP/2 HEADERS, CONTINUATION, PUSH_PROMISE, SETTINGS or RST_STREAM frame) held between reads.
    public var heldBytes = 65_536
    public var openRequests = 256
    /// HPACK's dynamic table, whatever size a peer's SETTINGS announce.
    public var headerTableBytes = 65_536
    /// A method, authority or path longer than this is cut to it.
    public var fieldBytes = 4_096

    public init() {}

    /// The defaults with one change, for a connection or a test that wants a tighter bound.
    public static func with(_ change: (inout RequestReadingLimits) -> Void) -> RequestReadingLimits {
        var limits = RequestReadingLimits()
        change(&limits)
        return limits
    }
}

/// Which way the bytes went.
public enum RequestDirection: Sendable, Hashable {
    case fromPhone
    case fromServer
}
