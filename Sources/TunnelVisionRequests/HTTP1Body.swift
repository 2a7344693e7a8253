/// How an HTTP/1.1 message's body ends (RFC 9112 § 6.3), and the reading of it as it goes by.
struct HTTP1Body {
    private enum State {
        case length(Int64)
        case chunkSize
        case chunkData(Int64)
        case chunkEnd
        case trailers
        case untilClose
        case ended
    }

    private var state: State

    static func length(_ count: Int64) -> HTTP1Body { HTTP1Body(state: count > 0 ? .length(count) : .ended) }
    static let chunked = HTTP1Body(state: .chunkSize)
    static let untilClose = HTTP1Body(state: .untilClose)

    var ended: Bool {
        if case .ended = state { return true }
        return false
    }

    /// Reads from `at` as far as the bytes go: where it stopped, and how many body bytes (the
    /// content, without chunk framing) went by. It stops short of a chunk-size line or a
    /// trailer section that is not yet whole.
    mutating func consume(_ bytes: UnsafeRawBufferPointer, from start: Int) throws -> (at: Int, counted: Int64) {
        var at = start
        var counted: Int64 = 0
        while at < bytes.count {
            switch state {
            case .ended:
                return (at, counted)
            case .untilClose:
                counted += Int64(bytes.count - at)
                return (bytes.count, counted)
            case .length(let remaining), .chunkData(let remaining):
                let taken = Int(min(remaining, Int64(bytes.count - at)))
                at += taken
                counted += Int64(taken)
                let left = remaining - Int64(taken)
                if case .length = state {
                    state = left == 0 ? .ended : .length(left)
                } else {
                    state = left == 0 ? .chunkEnd : .chunkData(left)
                }
            case .chunkEnd:
                if bytes[at] == UInt8(ascii: "\n") {
                    at += 1
                } else if bytes[at] == UInt8(ascii: "\r") {
                    guard at + 1 < bytes.count else { return (at, counted) }
                    guard bytes[at + 1] == UInt8(ascii: "\n") else { throw RequestReadingError.malformed(.chunkSize) }
                    at += 2
                } else {
                    throw RequestReadingError.malformed(.chunkSize)
                }
                state = .chunkSize
            case .chunkSize:
                guard let lineEnd = bytes[at...].firstIndex(of: UInt8(ascii: "\n")) else { return (at, counted) }
                let size = try Self.chunkSize(bytes[at..<lineEnd])
                at = lineEnd + 1
                state = size == 0 ? .trailers : .chunkData(size)
            case .trailers:
                guard let end = HTTP1Head.end(in: bytes, from: at) else { return (at, counted) }
                at = end
                state = .ended
            }
        }
        return (at, counted)
    }

    /// The hexadecimal size before any extension (`;`) or whitespace; at most 15 digits, so the
    /// sum of a message's chunks stays within an Int64.
    private static func chunkSize(_ line: Slice<UnsafeRawBufferPointer>) throws -> Int64 {
        var size: Int64 = 0
        var digits = 0
        for byte in line {
            let value: Int64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = Int64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = Int64(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = Int64(byte - UInt8(ascii: "A") + 10)
            case UInt8(ascii: ";"), UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                guard digits > 0 else { throw RequestReadingError.malformed(.chunkSize) }
                return size
            default:
                throw RequestReadingError.malformed(.chunkSize)
            }
            digits += 1
            guard digits <= 15 else { throw RequestReadingError.malformed(.chunkSize) }
            size = size * 16 + value
        }
        guard digits > 0 else { throw RequestReadingError.malformed(.chunkSize) }
        return size
    }
}
