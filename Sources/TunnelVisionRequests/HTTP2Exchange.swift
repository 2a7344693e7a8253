import Foundation
import TunnelVisionModel

/// An HTTP/2 connection (RFC 9113): the phone's preface, then frames both ways. Each stream the
/// phone opens is a request (its own :authority, so one connection may carry several names);
/// DATA frames count its body without their padding; the server's header block gives its
/// status. Frames that carry a header block or SETTINGS are held whole (bounded); every other
/// frame is passed over as it arrives, so a large body costs nothing held.
struct HTTP2Exchange {
    enum State {
        case preface(matched: Int)
        case frameHeader
        case skip(Int)
        case padLength(stream: UInt32, length: Int, endsStream: Bool)
        case data(stream: UInt32, dataLeft: Int, padLeft: Int, endsStream: Bool)
    }

    /// A header block being read, which may go on in CONTINUATION frames.
    struct Block {
        let stream: UInt32
        let isPromise: Bool
        let endsStream: Bool
        var method: String?
        var authority: String?
        var host: String?
        var path: String?
        var status: Int?
    }

    /// One direction: where its frames stand, what is held, its decoder, the header block in
    /// progress, and its SETTINGS' header table sizes not yet acknowledged by the other side.
    struct Side {
        var state: State
        var held = HeldBytes()
        let inflater: HPACKInflater
        var block: Block?
        var unacknowledgedTableSizes: [Int?] = []
    }

    let keepsPaths: Bool
    let limits: RequestReadingLimits
    var phone: Side
    var server: Side
    var streams: [UInt32: OpenRequest] = [:]
    var highestPhoneStream: UInt32 = 0
    var completed: [ReadRequest] = []
    var instant = Instant(nanosecondsSinceEpoch: 0)

    /// The most SETTINGS frames of one side awaiting the other's acknowledgement.
    static let unacknowledgedSettingsLimit = 16

    init(keepsPaths: Bool, limits: RequestReadingLimits) throws {
        self.keepsPaths = keepsPaths
        self.limits = limits
        phone = Side(state: .preface(matched: 0), inflater: try HPACKInflater())
        server = Side(state: .frameHeader, inflater: try HPACKInflater())
    }

    mutating func read(_ bytes: UnsafeRawBufferPointer, from direction: RequestDirection, at instant: Instant) throws -> [ReadRequest] {
        self.instant = instant
        var held = direction == .fromPhone ? phone.held : server.held
        try held.feed(bytes, limit: limits.heldBytes) { try consume($0, from: direction) }
        if direction == .fromPhone { phone.held = held } else { server.held = held }
        defer { completed = [] }
        return completed
    }

    mutating func finish() -> [ReadRequest] {
        defer { streams = [:] }
        return streams.keys.sorted().map { streams[$0]!.read(.http2, stream: $0) }
    }

    /// Reads whole frames (and passes over bodies) from `bytes`; returns how many it used.
    private mutating func consume(_ bytes: UnsafeRawBufferPointer, from direction: RequestDirection) throws -> Int {
        var side = direction == .fromPhone ? phone : server
        defer { if direction == .fromPhone { phone = side } else { server = side } }
        var at = 0
        while at < bytes.count {
            switch side.state {
            case .preface(let matched):
                let preface = RequestReader.preface
                let taken = min(preface.count - matched, bytes.count - at)
                guard bytes[at..<at + taken].elementsEqual(preface[matched..<matched + taken]) else { throw RequestReadingError.notHTTP }
                at += taken
                side.state = matched + taken == preface.count ? .frameHeader : .preface(matched: matched + taken)
            case .skip(let left):
                let taken = min(left, bytes.count - at)
                at += taken
                side.state = left == taken ? .frameHeader : .skip(left - taken)
            case .padLength(let stream, let length, let endsStream):
                let padding = Int(bytes[at])
                at += 1
                guard padding < length else { throw RequestReadingError.malformedFrame(type: 0) }
                side.state = .data(stream: stream, dataLeft: length - 1 - padding, padLeft: padding, endsStream: endsStream)
                endDataIfDone(&side.state, from: direction)
            case .data(let stream, let dataLeft, let padLeft, let endsStream):
                let data = min(dataLeft, bytes.count - at)
                if direction == .fromPhone, data > 0 { streams[stream]?.bodyBytes += Int64(data) }
                let padding = min(padLeft, bytes.count - at - data)
                at += data + padding
                side.state = .data(stream: stream, dataLeft: dataLeft - data, padLeft: padLeft - padding, endsStream: endsStream)
                endDataIfDone(&side.state, from: direction)
            case .frameHeader:
                guard bytes.count - at >= 9 else { return at }
                let length = Int(bytes[at]) << 16 | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2])
                let type = bytes[at + 3], flags = bytes[at + 4]
                let stream = (UInt32(bytes[at + 5]) << 24 | UInt32(bytes[at + 6]) << 16 | UInt32(bytes[at + 7]) << 8 | UInt32(bytes[at + 8])) & 0x7FFF_FFFF
                // A header block's CONTINUATION frames follow it with nothing between (RFC 9113 § 6.10).
                if let block = side.block, type != 9 || stream != block.stream { throw RequestReadingError.continuationExpected }
                switch type {
                case 0:
                    guard stream != 0 else { throw RequestReadingError.malformedFrame(type: type) }
                    at += 9
                    let endsStream = flags & 0x1 != 0
                    if flags & 0x8 != 0 {
                        guard length >= 1 else { throw RequestReadingError.malformedFrame(type: type) }
                        side.state = .padLength(stream: stream, length: length, endsStream: endsStream)
                    } else {
                        side.state = .data(stream: stream, dataLeft: length, padLeft: 0, endsStream: endsStream)
                        endDataIfDone(&side.state, from: direction)
                    }
                case 1, 3, 4, 5, 9:
                    let limit = limits.heldBytes - 9
                    guard length <= limit else { throw RequestReadingError.frameTooLarge(type: type, length: length, limit: limit) }
                    guard bytes.count - at - 9 >= length else { return at }
                    let payload = UnsafeRawBufferPointer(rebasing: bytes[at + 9..<at + 9 + length])
                    at += 9 + length
                    try frame(type: type, flags: flags, stream: stream, payload: payload, side: &side, from: direction)
                default:
                    at += 9
                    side.state = length == 0 ? .frameHeader : .skip(length)
                }
            }
        }
        return at
    }

    /// A DATA frame whose bytes have all gone by: its END_STREAM takes effect.
    private mutating func endDataIfDone(_ state: inout State, from direction: RequestDirection) {
        guard case .data(let stream, 0, 0, let endsStream) = state else { return }
        state = .frameHeader
        guard endsStream else { return }
        ended(stream, from: direction)
    }

    /// One side ended a stream: the request is complete once its body ended and the response
    /// gave a final status (or ended without one).
    mutating func ended(_ stream: UInt32, from direction: RequestDirection) {
        guard streams[stream] != nil else { return }
        if direction == .fromPhone { streams[stream]!.bodyEnded = true } else { streams[stream]!.responseEnded = true }
        completeIfDone(stream)
    }

    mutating func completeIfDone(_ stream: UInt32, reset: Bool = false) {
        guard let request = streams[stream],
              reset || request.bodyEnded && (request.status != nil || request.responseEnded) else { return }
        streams[stream] = nil
        completed.append(request.read(.http2, stream: stream))
    }
}
