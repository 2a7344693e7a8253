/// Walks the frames of a decrypted Initial and hands over each CRYPTO frame's data by offset.
/// An Initial may carry only PADDING, PING, ACK, CRYPTO and CONNECTION_CLOSE (RFC 9000 § 17.2.2);
/// anything else ends the walk.
public enum CryptoFrames {
    public static func forEach(
        in frames: UnsafeRawBufferPointer, _ body: (_ offset: UInt64, _ data: UnsafeRawBufferPointer) -> Void
    ) {
        var reader = ByteReader(frames)
        while let type = reader.varint() {
            switch type {
            case 0x00, 0x01:
                continue
            case 0x02, 0x03:
                guard skipAck(&reader, withCounts: type == 0x03) else { return }
            case 0x06:
                guard let offset = reader.varint(), let length = reader.varint(),
                      length <= UInt64(reader.remaining), let data = reader.take(Int(length)) else { return }
                body(offset, data)
            case 0x1C, 0x1D:
                return
            default:
                return
            }
        }
    }

    private static func skipAck(_ reader: inout ByteReader, withCounts: Bool) -> Bool {
        guard reader.varint() != nil, reader.varint() != nil, let ranges = reader.varint(),
              reader.varint() != nil, ranges <= UInt64(reader.remaining) else { return false }
        for _ in 0..<ranges {
            guard reader.varint() != nil, reader.varint() != nil else { return false }
        }
        if withCounts {
            for _ in 0..<3 { guard reader.varint() != nil else { return false } }
        }
        return true
    }
}
