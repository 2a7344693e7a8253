/// What one direction of a TLS stream carried, in the order it came.
public enum TLSEvent {
    /// A whole handshake message (its body, without the four-byte header), stitched across
    /// records when it spanned them.
    case handshake(type: UInt8, body: UnsafeRawBufferPointer)
    /// A handshake message whose body outgrew the bound: the prefix that fits.
    case truncatedHandshake(type: UInt8, statedLength: Int, prefix: UnsafeRawBufferPointer)
    case alert(level: UInt8, description: UInt8)
    case changeCipherSpec
    /// Anything the reader cannot follow: a record that is not TLS, or over its bound.
    case notTLS
}

/// Splits one direction's in-order bytes into TLS records and handshake messages, incrementally:
/// feed it the reassembled prefix as it grows and it resumes where it stopped. Handshake bytes
/// are copied only to stitch messages across records, up to `handshakeLimit`.
public struct TLSRecordLayer: Sendable {
    public static let contentChangeCipherSpec: UInt8 = 20
    public static let contentAlert: UInt8 = 21
    public static let contentHandshake: UInt8 = 22
    /// RFC 8446 § 5.2: a protected record may reach 2^14 + 256; a plaintext one 2^14.
    public static let maximumRecordLength = 16384 + 256

    private let handshakeLimit: Int
    /// Where the next record starts in the stream.
    public private(set) var streamOffset = 0
    private var handshakeBytes: [UInt8] = []
    private var handshakeStart = 0
    public private(set) var isFinished = false

    public init(handshakeLimit: Int) {
        self.handshakeLimit = handshakeLimit
    }

    /// Reads every complete record in `stream` beyond what was read before, calling `visit`
    /// for each event; `visit` answers false to stop for good.
    public mutating func advance(over stream: UnsafeRawBufferPointer, _ visit: (TLSEvent) -> Bool) {
        while !isFinished {
            guard let header = stream.slice(from: streamOffset, count: 5) else { return }
            let type = header[0], major = header[1]
            let length = Int(header[3]) << 8 | Int(header[4])
            guard major == 3, (20...23).contains(type), length <= Self.maximumRecordLength else {
                _ = visit(.notTLS)
                isFinished = true
                return
            }
            guard let body = stream.slice(from: streamOffset + 5, count: length) else { return }
            streamOffset += 5 + length
            let continuing: Bool
            switch type {
            case Self.contentHandshake:
                continuing = absorbHandshake(body, visit)
            case Self.contentAlert:
                continuing = body.count < 2 || visit(.alert(level: body[0], description: body[1]))
            case Self.contentChangeCipherSpec:
                continuing = visit(.changeCipherSpec)
            default:
                // Application data before the handshake was read: nothing more to learn here.
                _ = visit(.notTLS)
                continuing = false
            }
            if !continuing { isFinished = true }
        }
    }

    private mutating func absorbHandshake(_ fragment: UnsafeRawBufferPointer, _ visit: (TLSEvent) -> Bool) -> Bool {
        let room = max(handshakeLimit - (handshakeBytes.count - handshakeStart), 0)
        handshakeBytes.append(contentsOf: fragment.prefix(room))
        let isFull = fragment.count >= room
        var start = handshakeStart
        let continuing = handshakeBytes.withUnsafeBytes { buffered -> Bool in
            while let header = buffered.slice(from: start, count: 4) {
                let type = header[0]
                let length = Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
                if let body = buffered.slice(from: start + 4, count: length) {
                    start += 4 + length
                    if !visit(.handshake(type: type, body: body)) { return false }
                    continue
                }
                if isFull, let prefix = buffered.slice(from: start + 4) {
                    // The message cannot fit: what arrived so far is all that will be read.
                    _ = visit(.truncatedHandshake(type: type, statedLength: length, prefix: prefix))
                    return false
                }
                break
            }
            return true
        }
        handshakeStart = start
        if handshakeStart == handshakeBytes.count {
            handshakeBytes.removeAll(keepingCapacity: true)
            handshakeStart = 0
        }
        return continuing
    }
}
