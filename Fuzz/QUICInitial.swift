import TunnelVisionModel
import TunnelVisionWire

/// QUIC Initial: the input is a client datagram (long headers, coalesced packets) and, read again,
/// the plaintext frames of a decrypted Initial (CRYPTO frames reassembled by offset).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQUICInitial(_ start: UnsafeRawPointer?, _ count: Int) -> Int32 {
    guard let start, count > 0 else { return 0 }
    let input = UnsafeRawBufferPointer(start: start, count: count)
    var reader = ClientInitialReader()
    reader.read(datagram: input)
    reader.noteRetry(sourceConnectionID: UnsafeRawBufferPointer(rebasing: input.prefix(20)))
    reader.read(datagram: input)
    if let header = QUICLongHeader(input) {
        _ = InitialPacket.lengthAndPacketNumberOffset(header)
        if let keys = InitialKeys(clientOf: .v1, destinationConnectionID: header.destinationConnectionID) {
            _ = InitialPacket.decrypt(header, keys: keys)
        }
    }
    var crypto = StreamReassembler(limit: 16 * 1024)
    CryptoFrames.forEach(in: input) { offset, data in
        guard offset <= UInt64(crypto.limit) else { return }
        crypto.insert(data, at: Int(offset))
    }
    _ = crypto.contiguous.withUnsafeBytes { ClientHandshakeReader.readCryptoStream($0) }
    return 0
}
