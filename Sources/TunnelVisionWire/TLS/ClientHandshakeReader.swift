/// Reads the phone's first handshake message from its in-order stream bytes: a ClientHello
/// (records stitched, at most 64 KiB), or an SSL 2.0-format one. Settles once and stays settled.
public struct ClientHandshakeReader: Sendable {
    /// A ClientHello may span several records (one carries at most 16 KiB): with post-quantum key
    /// shares, many ALPN names or padding, real ones pass 16 KiB. OpenSSL's server takes up to
    /// 128 KiB; the relay holds at most 64 KiB, and so does this reader (the bytes are copied
    /// only while a message spans records).
    public static let clientHelloLimit = 64 * 1024

    private var records = TLSRecordLayer(handshakeLimit: ClientHandshakeReader.clientHelloLimit + 4)
    public private(set) var reading: ClientHelloReading?
    public private(set) var isSettled = false

    public init() {}

    /// `stream` is the direction's contiguous bytes from its start.
    public mutating func advance(over stream: UnsafeRawBufferPointer) {
        guard !isSettled else { return }
        if records.streamOffset == 0, SSLv2ClientHello.matches(stream) {
            reading = SSLv2ClientHello.read(stream)
            isSettled = true
            return
        }
        var found: ClientHelloReading?
        var settled = false
        records.advance(over: stream) { event in
            settled = true
            if case .handshake(type: 1, let body) = event { found = ClientHelloReading(body: body) }
            return false
        }
        if settled {
            reading = found
            isSettled = true
        }
    }

    /// Reads a QUIC CRYPTO stream, which carries handshake messages without records.
    public static func readCryptoStream(_ stream: UnsafeRawBufferPointer) -> (reading: ClientHelloReading?, isSettled: Bool) {
        var reader = ByteReader(stream)
        guard let type = reader.u8(), let length = reader.u24() else { return (nil, false) }
        guard type == 1, length <= clientHelloLimit else { return (nil, true) }
        guard let body = reader.take(length) else { return (nil, false) }
        return (ClientHelloReading(body: body), true)
    }
}
