/// Why the request reader stopped reading a connection. The requests read before it stay; the
/// relay keeps carrying the bytes (the reader never decides what reaches the server).
public enum RequestReadingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A part of HTTP/1.1 that does not follow RFC 9112, each with its sentence.
    public enum Malformation: String, Sendable, Hashable {
        case requestLine = "An HTTP/1.1 request line is not a method, a target and an HTTP version."
        case statusLine = "An HTTP/1.1 status line is not an HTTP version and a three-digit status."
        case headerField = "An HTTP/1.1 header field is not a name, a colon and a value."
        case contentLength = "An HTTP/1.1 request's body cannot be framed: its Content-Length is not one decimal number, or its transfer coding does not end in chunked."
        case chunkSize = "An HTTP/1.1 chunk size is not a hexadecimal number followed by a line end."
    }

    /// What went past one of the reader's bounds (`RequestReadingLimits`).
    public enum Bound: String, Sendable, Hashable {
        case headerSection = "An HTTP/1.1 header section's length in bytes"
        case heldUnit = "The bytes of one incomplete unit (a line, a frame) held between reads"
        case openRequests = "The number of requests open at once"
    }

    case notHTTP
    case malformed(Malformation)
    case beyondBound(Bound, limit: Int)
    case frameTooLarge(type: UInt8, length: Int, limit: Int)
    case malformedFrame(type: UInt8)
    case continuationExpected
    case headerCompression(reason: String)
    case missingMethod(stream: UInt32)

    public var description: String {
        switch self {
        case .notHTTP:
            "The plaintext is neither an HTTP/1.1 request nor HTTP/2's connection preface, so no request was read from it."
        case .malformed(let part):
            part.rawValue
        case .beyondBound(let bound, let limit):
            "\(bound.rawValue) went past \(limit), the most the request reader follows."
        case .frameTooLarge(let type, let length, let limit):
            "An HTTP/2 frame of type \(type) is \(length) bytes long; the request reader holds such frames up to \(limit) bytes."
        case .malformedFrame(let type):
            "An HTTP/2 frame of type \(type) is malformed (its padding, length or stream does not fit)."
        case .continuationExpected:
            "An HTTP/2 header block was interrupted by another frame before its CONTINUATION."
        case .headerCompression(let reason):
            "An HTTP/2 header block could not be decompressed (HPACK: \(reason))."
        case .missingMethod(let stream):
            "The HTTP/2 request on stream \(stream) has no :method."
        }
    }
}
