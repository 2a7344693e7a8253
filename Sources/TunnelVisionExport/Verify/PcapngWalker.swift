/// Walks a pcapng stream block by block as its bytes arrive (pcapng, draft-ietf-opsawg-pcapng:
/// each block's total length before and after its body), so that a capture of hundreds of
/// megabytes is checked to its end without being held. It reads framing only: that every block
/// is whole and the file ends between two blocks.
struct PcapngWalker {
    enum Failure: Error, Sendable, Hashable {
        case notPcapng
        case badBlock(index: Int, reason: String)
        case endsInsideBlock(index: Int)
    }

    /// No block of ours comes near this; a larger length is damage, not a block to buffer.
    static let maximumBlock = 64 << 20
    private static let sectionHeader: UInt32 = 0x0A0D_0D0A
    private static let enhancedPacket: UInt32 = 6

    private(set) var blocks = 0
    private(set) var packets = 0
    private var pending: [UInt8] = []
    private var start = 0
    private var littleEndian = true

    mutating func feed(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        pending.append(contentsOf: bytes)
        while pending.count - start >= 12 {
            if blocks == 0 {
                guard value(at: start) == Self.sectionHeader else { throw .notPcapng }
                // The byte-order magic says how every later number is written.
                let magic = Array(pending[(start + 8)..<(start + 12)])
                if magic == [0x4D, 0x3C, 0x2B, 0x1A] { littleEndian = true } else if magic == [0x1A, 0x2B, 0x3C, 0x4D] { littleEndian = false } else {
                    throw .notPcapng
                }
            }
            let type = value(at: start), length = Int(value(at: start + 4))
            guard length >= 12, length % 4 == 0, length <= Self.maximumBlock else {
                throw .badBlock(index: blocks + 1, reason: "its length \(length) is not a block's")
            }
            guard pending.count - start >= length else { break }
            guard Int(value(at: start + length - 4)) == length else {
                throw .badBlock(index: blocks + 1, reason: "its two lengths disagree")
            }
            if type == Self.sectionHeader, blocks > 0 {
                let magic = Array(pending[(start + 8)..<(start + 12)])
                littleEndian = magic == [0x4D, 0x3C, 0x2B, 0x1A]
            }
            if type == Self.enhancedPacket { packets += 1 }
            blocks += 1
            start += length
        }
        // Drops what was read once it is most of the buffer, so that a long stream costs no quadratic copying.
        if start > 1 << 20, start * 2 > pending.count {
            pending.removeFirst(start)
            start = 0
        }
    }

    func finish() throws(Failure) {
        guard blocks > 0 else { throw .notPcapng }
        guard pending.count == start else { throw .endsInsideBlock(index: blocks + 1) }
    }

    private func value(at index: Int) -> UInt32 {
        let bytes = (0..<4).map { UInt32(pending[index + $0]) }
        return littleEndian
            ? bytes[0] | bytes[1] << 8 | bytes[2] << 16 | bytes[3] << 24
            : bytes[3] | bytes[2] << 8 | bytes[1] << 16 | bytes[0] << 24
    }
}
