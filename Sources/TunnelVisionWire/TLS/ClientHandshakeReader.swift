/// Reads the phone's first handshake message from its in-order stream bytes: a ClientHello
/// (records stitched, at most 16 KiB), or an SSL 2.0-format one. Settles once and stays settled.
public struct ClientHandshakeReader: Sendable {
    public static let clientHelloLimit = 16 * 1024

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
