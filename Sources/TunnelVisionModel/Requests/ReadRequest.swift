import Foundation

/// One request the phone sent inside an inspected connection, as the relay read it from the
/// plaintext: facts about the request, never its content. The path is kept only when the
/// recording was started to keep paths (it can carry personal data). Encoded as flows.json writes
/// it: its properties by name, the version by its text, what was not read left out.
public struct ReadRequest: Sendable, Hashable {
    /// The HTTP version the request was read in.
    public enum Version: String, Sendable, Hashable, CaseIterable {
        case http1 = "HTTP/1.1"
        case http2 = "HTTP/2"
    }

    /// When the request's headers were complete (the instant the caller handed in with the
    /// bytes that completed them).
    public let instant: Instant
    public let version: Version
    public let method: String
    /// HTTP/1.1's `Host` (or the authority of an absolute-form target), HTTP/2's `:authority`
    /// (or `Host`); nil when the request named none.
    public let authority: String?
    /// Nil unless paths were asked for, or when the request had none (CONNECT).
    public let path: String?
    /// The request body's bytes as framed (Content-Length, chunk data, DATA frames without
    /// their padding), counted as they went by.
    public let bodyBytes: Int64
    /// The final (non-informational) response status; nil when none was read before the
    /// request ended (a reset stream, a closed connection).
    public let responseStatus: Int?
    /// The HTTP/2 stream that carried it; nil for HTTP/1.1.
    public let stream: UInt32?

    public init(
        instant: Instant, version: Version, method: String, authority: String?, path: String?,
        bodyBytes: Int64, responseStatus: Int?, stream: UInt32?
    ) {
        self.instant = instant
        self.version = version
        self.method = method
        self.authority = authority
        self.path = path
        self.bodyBytes = bodyBytes
        self.responseStatus = responseStatus
        self.stream = stream
    }
}
