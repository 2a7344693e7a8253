/// The one little-endian byte writer of the capture formats: pcap and pcapng both lay every
/// field out little-endian, and the synthetic captures of tvwire are built with it too.
extension Array where Element == UInt8 {
    public mutating func appendLittleEndian<Integer: FixedWidthInteger>(_ value: Integer) {
        var little = value.littleEndian
        Swift.withUnsafeBytes(of: &little) { append(contentsOf: $0) }
    }

    /// Only ever called with an offset whose four bytes the caller has checked are there.
    func littleEndianUInt32(at offset: Int) -> UInt32 {
        guard offset >= 0, offset <= count - 4 else { return 0 }
        return UInt32(self[offset]) | UInt32(self[offset + 1]) << 8
            | UInt32(self[offset + 2]) << 16 | UInt32(self[offset + 3]) << 24
    }
}
