/// Why the request reader stopped reading a connection. The requests read before it stay; the
/// relay keeps carrying the bytes (the reader never decides what reaches the server).
public enum RequestReadingError: Error, Sendable, Hashable, CustomStringConvertible {
    case notHTTP
    case headTooLarge(limit: Int)
    case malformedRequestLine
    case malformedStatusLine
    case malformedHeaderField
    case invalidContentLength
    case invalidChunkSize
    case heldTooMuch(limit: Int)
    case frameTooLarge(type: UInt8, length: Int, limit: Int)
    case malformedFrame(type: UInt8)
    case continuationExpected
    case headerCompression(reason: String)
    case missingMethod(stream: UInt32)
    case tooManyOpenRequests(limit: Int)

    public var description: String {
        switch self {
        case .notHTTP:
            "The plaintext is neither an HTTP/1.1 request nor HTTP/2's connection preface, so no request was read from it."
        case .headTooLarge(let limit):
            "An HTTP/1.1 header section is longer than \(limit) bytes, the most the request reader holds."
        case .malformedRequestLine:
            "An HTTP/1.1 request line is not a method, a target and an HTTP version."
        case .malformedStatusLine:
            "An HTTP/1.1 status line is not an HTTP version and a three-digit status."
        case .malformedHeaderField:
            "An HTTP/1.1 header field is not a name, a colon and a value."
        case .invalidContentLength:
            "An HTTP/1.1 Content-Length is not one decimal number, so the body's end cannot be found."
        case .invalidChunkSize:
            "An HTTP/1.1 chunk size is not a hexadecimal number followed by a line end."
        case .heldTooMuch(let limit):
            "More than \(limit) bytes of one incomplete unit were waiting, the most the request reader holds."
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
        case .tooManyOpenRequests(let limit):
            "More than \(limit) requests were open at once, the most the request reader follows."
        }
    }
}
