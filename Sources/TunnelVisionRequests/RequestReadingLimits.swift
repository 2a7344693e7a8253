/// The request reader's bounds: what it holds between reads, how many requests it follows at
/// once, and how long a kept text may be. Its memory is at most about `heldBytes` per direction
/// plus one read, `openRequests` requests of at most `fieldBytes` each, and HPACK's two dynamic
/// tables of at most `headerTableBytes` each.
public struct RequestReadingLimits: Sendable, Hashable {
    /// The most bytes of one incomplete unit (an HTTP/1.1 header section, a chunk-size line, an
    /// HTTP/2 HEADERS, CONTINUATION, PUSH_PROMISE, SETTINGS or RST_STREAM frame) held between reads.
    public var heldBytes: Int
    public var openRequests: Int
    /// HPACK's dynamic table, whatever size a peer's SETTINGS announce.
    public var headerTableBytes: Int
    /// A method, authority or path longer than this is cut to it.
    public var fieldBytes: Int

    public init(heldBytes: Int = 65_536, openRequests: Int = 256, headerTableBytes: Int = 65_536, fieldBytes: Int = 4_096) {
        self.heldBytes = heldBytes
        self.openRequests = openRequests
        self.headerTableBytes = headerTableBytes
        self.fieldBytes = fieldBytes
    }
}

/// Which way the bytes went.
public enum RequestDirection: Sendable, Hashable {
    case fromPhone
    case fromServer
}
