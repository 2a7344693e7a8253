/// Puts one direction's first bytes back in order: pieces arrive by offset (TCP sequence from
/// ISN + 1, QUIC CRYPTO offset), possibly twice, overlapping or out of order; the contiguous
/// prefix grows as gaps fill. Bounded: past `limit` bytes it stops taking more and says so.
public struct StreamReassembler: Sendable {
    public let limit: Int
    /// The in-order bytes from offset 0.
    public private(set) var contiguous: [UInt8] = []
    /// Pieces beyond a gap, sorted by offset, never overlapping each other.
    private var pending: [(offset: Int, bytes: [UInt8])] = []
    private var pendingBytes = 0
    /// More was offered than the bound allows; the prefix stays valid.
    public private(set) var overflowed = false

    public init(limit: Int) {
        self.limit = limit
    }

    /// Bytes held: the prefix and the pieces beyond a gap.
    public var heldBytes: Int { contiguous.count + pendingBytes }

    /// Adds the bytes at `offset`; answers whether the contiguous prefix grew.
    @discardableResult
    public mutating func insert(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        guard !bytes.isEmpty, offset >= 0 else { return false }
        let end = offset.addingReportingOverflow(bytes.count)
        guard !end.overflow else { return false }
        var start = offset, stop = end.partialValue
        if stop > limit {
            overflowed = true
            stop = limit
        }
        // Bytes already in the prefix are duplicates: trim them off the front.
        start = max(start, contiguous.count)
        guard start < stop else { return false }
        let piece = bytes.slice(from: start - offset, count: stop - start) ?? UnsafeRawBufferPointer(start: nil, count: 0)
        if start == contiguous.count {
            contiguous.append(contentsOf: piece)
            drainPending()
            return true
        }
        storePending(piece, at: start)
        return false
    }

    private mutating func storePending(_ piece: UnsafeRawBufferPointer, at offset: Int) {
        var start = offset
        let stop = offset + piece.count
        var index = 0
        // Keep only the parts that no stored piece covers yet.
        while start < stop {
            while index < pending.count, pending[index].offset + pending[index].bytes.count <= start { index += 1 }
            let nextStart = index < pending.count ? pending[index].offset : stop
            if nextStart > start {
                let partEnd = min(nextStart, stop)
                let part = Array(piece[(start - offset)..<(partEnd - offset)])
                pending.insert((start, part), at: index)
                pendingBytes += part.count
                index += 1
                start = partEnd
            } else {
                start = pending[index].offset + pending[index].bytes.count
                index += 1
            }
        }
    }

    private mutating func drainPending() {
        while let first = pending.first, first.offset <= contiguous.count {
            pending.removeFirst()
            pendingBytes -= first.bytes.count
            let skip = contiguous.count - first.offset
            if skip < first.bytes.count { contiguous.append(contentsOf: first.bytes[skip...]) }
        }
    }

    public var hasGaps: Bool { !pending.isEmpty }
}
