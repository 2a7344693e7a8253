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
    public static let contentApplicationData: UInt8 = 23
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

/// Early data on TCP (RFC 8446 § 4.2.10): a client sends application records straight after its
/// ClientHello (and a compatibility ChangeCipherSpec) only as 0-RTT data; without it, its next
/// application record is its Finished, which waits for the server's whole flight. So on a tap
/// in the path, an application record seen before any byte of the server's answer is early data.
public enum EarlyDataRecords {
    /// Records looked through before giving up.
    static let recordLimit = 64

    /// Whether the records from the start of the client's TLS stream hold an application record
    /// after only handshake and ChangeCipherSpec records; nil while the bytes end first.
    public static func followHello(in records: UnsafeRawBufferPointer) -> Bool? {
        var reader = ByteReader(records)
        for _ in 0..<recordLimit {
            guard let type = reader.u8() else { return nil }
            guard reader.skip(2), let length = reader.u16() else { return nil }
            switch type {
            case TLSRecordLayer.contentApplicationData: return true
            case TLSRecordLayer.contentHandshake, TLSRecordLayer.contentChangeCipherSpec:
                guard reader.skip(Int(length)) else { return nil }
            default: return false
            }
        }
        return false
    }
}
