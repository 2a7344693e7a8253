import TunnelVisionModel
import TunnelVisionWire

/// QUIC Initial: the input is a datagram (long headers, coalesced packets) read as the client's and
/// as the server's, and, read again, the plaintext frames of a decrypted Initial (CRYPTO frames
/// reassembled by offset) and a server CRYPTO stream; then Google QUIC's: the datagram as a Q043
/// or Q046 client packet, its frames walked as Google's, and the input as a CHLO message.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQUICInitial(_ start: UnsafeRawPointer?, _ count: Int) -> Int32 {
    guard let start, count > 0 else { return 0 }
    let input = UnsafeRawBufferPointer(start: start, count: count)
    var reader = QUICHandshakeReader()
    reader.read(datagram: input, from: .client)
    reader.read(datagram: input, from: .server)
    reader.read(datagram: input, from: .client)
    if let header = QUICLongHeader(input) {
        _ = InitialPacket.lengthAndPacketNumberOffset(header)
        for sender in [InitialSender.client, .server] {
            if let keys = InitialKeys(sender, of: header.version, destinationConnectionID: header.destinationConnectionID) {
                _ = InitialPacket.decrypt(header, keys: keys)
            }
        }
    }
    var crypto = StreamReassembler(limit: 16 * 1024)
    CryptoFrames.forEach(in: input) { offset, data in
        guard offset <= UInt64(crypto.limit) else { return }
        crypto.insert(data, at: Int(offset))
    }
    _ = crypto.contiguous.withUnsafeBytes { ClientHandshakeReader.readCryptoStream($0) }
    var google = GoogleQUICHandshakeReader()
    google.read(clientDatagram: input)
    google.read(clientDatagram: input)
    GoogleQUICFrames.forEach(in: input) { _, _ in }
    _ = GoogleClientHello.read(input)
    return 0
}
