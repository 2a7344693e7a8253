import Foundation
import TunnelVisionModel

/// An HTTP/1.1 connection: the phone's requests in order (keep-alive and pipelining), each body
/// framed by Content-Length or chunks, and the server's status lines matched to them in order.
/// After a CONNECT the server accepts, or a 101 (Switching Protocols), the bytes are no longer
/// HTTP/1.1 and are not read.
struct HTTP1Exchange {
    let keepsPaths: Bool
    let limits: RequestReadingLimits
    private var phoneHeld = HeldBytes()
    private var serverHeld = HeldBytes()
    private var phoneBody: HTTP1Body?
    private var serverBody: HTTP1Body?
    private var requests: [OpenRequest] = []
    private var sawRequest = false
    private var switched = false
    private var instant = Instant(nanosecondsSinceEpoch: 0)

    init(keepsPaths: Bool, limits: RequestReadingLimits) {
        self.keepsPaths = keepsPaths
        self.limits = limits
    }

    mutating func read(_ bytes: UnsafeRawBufferPointer, from direction: RequestDirection, at instant: Instant) throws -> [ReadRequest] {
        guard !switched else { return [] }
        self.instant = instant
        switch direction {
        case .fromPhone:
            var held = phoneHeld
            phoneHeld = HeldBytes()
            try held.feed(bytes, limit: limits.heldBytes) { try consume($0, from: .fromPhone) }
            phoneHeld = held
        case .fromServer:
            var held = serverHeld
            serverHeld = HeldBytes()
            try held.feed(bytes, limit: limits.heldBytes) { try consume($0, from: .fromServer) }
            serverHeld = held
        }
        var done: [ReadRequest] = []
        while let first = requests.first, first.bodyEnded, first.status != nil {
            done.append(requests.removeFirst().read(.http1, stream: nil))
        }
        return done
    }

    mutating func finish() -> [ReadRequest] {
        defer { requests = [] }
        return requests.map { $0.read(.http1, stream: nil) }
    }

    /// Heads and bodies of one direction, as far as the bytes go; returns how many it used.
    private mutating func consume(_ bytes: UnsafeRawBufferPointer, from direction: RequestDirection) throws -> Int {
        let fromPhone = direction == .fromPhone
        var at = 0
        while at < bytes.count, !switched {
            if var body = fromPhone ? phoneBody : serverBody {
                let step = try body.consume(bytes, from: at)
                at = step.at
                let ended = body.ended
                if fromPhone {
                    // The body being read is the last request's: requests follow one another.
                    requests[requests.count - 1].bodyBytes += step.counted
                    requests[requests.count - 1].bodyEnded = ended
                    phoneBody = ended ? nil : body
                } else {
                    serverBody = ended ? nil : body
                }
                guard ended else { break }
                continue
            }
            guard let headStart = Self.skipBlankLines(bytes, from: at) else { return bytes.count }
            at = headStart
            guard !fromPhone || sawRequest || HTTP1Head.isTokenByte(bytes[at]) else { throw RequestReadingError.notHTTP }
            guard let end = HTTP1Head.end(in: bytes, from: at) else {
                guard bytes.count - at <= limits.heldBytes else { throw RequestReadingError.beyondBound(.headerSection, limit: limits.heldBytes) }
                break
            }
            let head = try HTTP1Head(Array(bytes[at..<end])[...], startLineError: fromPhone ? .malformed(.requestLine) : .malformed(.statusLine))
            if fromPhone { try begin(head) } else { try answer(head) }
            at = end
        }
        return at
    }

    private mutating func begin(_ head: HTTP1Head) throws {
        let parts = head.startLine
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(HTTP1Head.isTokenByte),
              !parts[1].isEmpty, parts[2].starts(with: "HTTP/1.".utf8) else {
            throw RequestReadingError.malformed(.requestLine)
        }
        guard requests.count < limits.openRequests else { throw RequestReadingError.beyondBound(.openRequests, limit: limits.openRequests) }
        sawRequest = true
        let method = boundedText(parts[0], limit: limits.fieldBytes)
        let target = parts[1]
        var authority = head.host.map { $0[...] }
        var path: ArraySlice<UInt8>? = target
        if method == "CONNECT" {
            authority = target
            path = nil
        } else if let scheme = target.firstRange(of: "://".utf8), target[..<scheme.lowerBound].allSatisfy(HTTP1Head.isTokenByte) {
            // The absolute form (to a proxy): its authority stands for Host (RFC 9112 § 3.2.2).
            let rest = target[scheme.upperBound...]
            let pathStart = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? rest.endIndex
            authority = rest[..<pathStart]
            path = pathStart == rest.endIndex ? Array("/".utf8)[...] : rest[pathStart...]
        }
        var request = OpenRequest(
            instant: instant, method: method,
            authority: authority.map { boundedText($0, limit: limits.fieldBytes).lowercased() },
            path: keepsPaths ? path.map { boundedText($0, limit: limits.fieldBytes) } : nil)
        if head.transferEncoded {
            // A request's transfer coding other than a final chunked cannot be framed (RFC 9112 § 6.3).
            guard head.chunked else { throw RequestReadingError.malformed(.contentLength) }
            phoneBody = .chunked
        } else if let length = head.contentLength, length > 0 {
            phoneBody = .length(length)
        } else {
            request.bodyEnded = true
        }
        requests.append(request)
    }

    /// A status line: an interim one (1xx) waits for the final one, except 101; the final one
    /// goes to the oldest request without one, and its body is skipped by its framing.
    private mutating func answer(_ head: HTTP1Head) throws {
        let parts = head.startLine
        guard parts[0].starts(with: "HTTP/1.".utf8), parts[1].count == 3,
              parts[1].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw RequestReadingError.malformed(.statusLine)
        }
        let status = parts[1].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        let index = requests.firstIndex { $0.status == nil }
        if status == 101 || (200..<300).contains(status) && index.map({ requests[$0].method == "CONNECT" }) == true {
            if let index { requests[index].status = status }
            switched = true
            return
        }
        if (100..<200).contains(status) { return }
        let method = index.map { requests[$0].method }
        if let index { requests[index].status = status }
        if method == "HEAD" || status == 204 || status == 304 {
            return
        } else if head.transferEncoded {
            serverBody = head.chunked ? .chunked : .untilClose
        } else if let length = head.contentLength {
            serverBody = .length(length)
        } else {
            serverBody = .untilClose
        }
    }

    /// Past the empty lines before a start line; nil when the bytes end first.
    private static func skipBlankLines(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var at = start
        while at < bytes.count, bytes[at] == UInt8(ascii: "\r") || bytes[at] == UInt8(ascii: "\n") { at += 1 }
        return at < bytes.count ? at : nil
    }
}
