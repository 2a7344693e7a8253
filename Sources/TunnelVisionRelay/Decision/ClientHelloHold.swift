import TunnelVisionModel
import TunnelVisionWire

/// The phone's first bytes, held until its ClientHello is complete (or it cannot be one), at
/// most `limit` bytes. Held bytes are replayed unchanged: to the server on a splice, to our
/// TLS server on a termination.
public struct ClientHelloHold: Sendable {
    public enum State: Sendable, Hashable {
        /// More bytes are needed.
        case waiting
        /// The first message was read: a ClientHello (its reading) or something else (nil).
        case settled(ClientHelloReading?)
        /// `limit` bytes held and the first message is still incomplete.
        case full
    }

    public let limit: Int
    public private(set) var bytes: [UInt8] = []
    public private(set) var state: State = .waiting
    private var reader = ClientHandshakeReader()

    public init(limit: Int = 64 * 1024) {
        self.limit = max(limit, 0)
    }

    /// How many more bytes the hold takes; reading from the phone stops at zero.
    public var room: Int { state == .waiting ? limit - bytes.count : 0 }

    /// Takes the prefix of `chunk` that fits and reads on; answers how many bytes it took.
    @discardableResult
    public mutating func append(_ chunk: UnsafeRawBufferPointer) -> Int {
        let taken = min(chunk.count, room)
        guard taken > 0 else { return 0 }
        bytes.append(contentsOf: chunk.prefix(taken))
        bytes.withUnsafeBytes { reader.advance(over: $0) }
        if reader.isSettled {
            state = .settled(reader.reading)
        } else if bytes.count >= limit {
            state = .full
        }
        return taken
    }

    @discardableResult
    public mutating func append(_ chunk: [UInt8]) -> Int {
        chunk.withUnsafeBytes { append($0) }
    }
}
