import TunnelVisionModel

/// Decides how a TCP stream opened from the phone's first in-order bytes, one byte at a time and
/// without buffering: a TLS handshake record carrying a ClientHello (decided at byte six), a whole
/// HTTP/1.x request line `token SP target SP HTTP/d.d` ending in CRLF or LF (`PRI * HTTP/2.0`
/// included), or anything else.
public struct StreamOpeningDetector: Sendable, Hashable {
    public static let requestLineLimit = 8192

    private enum State: Sendable, Hashable {
        case start
        case tls(position: Int, length: Int)
        case method
        case target(started: Bool)
        case version(position: Int)
        case carriageReturn
        case decided(StreamOpening)
    }

    private var state = State.start
    private var consumed = 0

    public init() {}

    public var opening: StreamOpening? {
        if case .decided(let opening) = state { return opening }
        return nil
    }

    /// Feeds the next in-order bytes; returns the opening once decided.
    @discardableResult
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> StreamOpening? {
        for byte in bytes {
            if let decided = opening { return decided }
            consumed += 1
            state = next(after: byte)
            if opening == nil, consumed >= Self.requestLineLimit { state = .decided(.unrecognised) }
        }
        return opening
    }

    /// Whether these bytes begin with a TLS handshake record carrying a ServerHello (SSL 3.0 to
    /// TLS 1.3 record versions): the server's answer names itself as a ClientHello does.
    public static func beginsWithServerHello(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let head = bytes.slice(from: 0, count: 6) else { return false }
        let length = Int(head[3]) << 8 | Int(head[4])
        return head[0] == TLSRecordLayer.contentHandshake && head[1] == 3 && head[2] <= 4
            && length >= 4 && length <= 16_384 + 2_048 && head[5] == 2
    }

    /// Whether these bytes begin with a TLS handshake record carrying a ClientHello: the opening
    /// rule's first six bytes, which identify a ClientHello wherever a stream is picked up.
    public static func beginsWithTLSHandshake(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let head = bytes.slice(from: 0, count: 6) else { return false }
        var detector = StreamOpeningDetector()
        return detector.feed(head) == .tlsHandshake
    }

    private static let httpVersionPattern: [UInt8] = Array("HTTP/0.0".utf8)

    private func next(after byte: UInt8) -> State {
        switch state {
        case .decided:
            return state
        case .start:
            if byte == 22 { return .tls(position: 1, length: 0) }
            return Self.isTokenCharacter(byte) ? .method : .decided(.unrecognised)
        case .tls(let position, let length):
            switch position {
            case 1: return byte == 3 ? .tls(position: 2, length: 0) : .decided(.unrecognised)
            case 2: return byte <= 4 ? .tls(position: 3, length: 0) : .decided(.unrecognised)
            case 3: return .tls(position: 4, length: Int(byte) << 8)
            case 4:
                let total = length | Int(byte)
                return (4...16384).contains(total) ? .tls(position: 5, length: total) : .decided(.unrecognised)
            default:
                return .decided(byte == 1 ? .tlsHandshake : .unrecognised)
            }
        case .method:
            if byte == UInt8(ascii: " ") { return .target(started: false) }
            return Self.isTokenCharacter(byte) ? .method : .decided(.unrecognised)
        case .target(let started):
            if byte == UInt8(ascii: " ") { return started ? .version(position: 0) : .decided(.unrecognised) }
            return (0x21...0x7E).contains(byte) ? .target(started: true) : .decided(.unrecognised)
        case .version(let position):
            if position == Self.httpVersionPattern.count {
                if byte == UInt8(ascii: "\r") { return .carriageReturn }
                return byte == UInt8(ascii: "\n") ? .decided(.httpRequest) : .decided(.unrecognised)
            }
            let expected = Self.httpVersionPattern[position]
            let matches = expected == UInt8(ascii: "0")
                ? (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                : byte == expected
            return matches ? .version(position: position + 1) : .decided(.unrecognised)
        case .carriageReturn:
            return .decided(byte == UInt8(ascii: "\n") ? .httpRequest : .unrecognised)
        }
    }

    /// RFC 9110 § 5.6.2 tchar.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
