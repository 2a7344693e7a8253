import TunnelVisionModel

/// The packet index: a flow's packets in one capture file, written once per batch as
/// one row — a run — rather than one row per packet. File 0 holds the packets that were not
/// captured. A run keeps its first packet's instant and offset, and each of its packets as
/// `[instant − first, direction, wire length, offset − first]` in a JSON array: SQLite reads that
/// itself (the `packets` view of migration 11), so sqlite3 and the lab see the rows they always
/// did, while the writer pays for one row per flow and file in a batch.
enum PacketRuns {
    static let insertPrefix = "INSERT INTO packet_runs (flow_id, file_seq, first_ts, first_offset, packets, entries)"

    /// The runs of one batch, each flow's packets per file in the order the batch lists them.
    static func runs(of packets: [PacketRecord], rows: [FlowHandle: Int64]) throws(History.BatchError) -> [Run] {
        var runs: [Run] = []
        var open: [RunKey: Int] = [:]
        var last: (key: RunKey, index: Int)?
        for packet in packets {
            guard let flowID = rows[packet.flow] else { throw .packetOfUnlistedFlow(packet.flow) }
            let key = RunKey(flowID: flowID, fileSequence: packet.location.isCaptured ? packet.location.fileSequence : 0)
            // Consecutive packets of one flow are the common case: no lookup for them.
            let index = last.flatMap { $0.key == key ? $0.index : nil } ?? open[key]
            if let index, runs[index].append(packet) {
                last = (key, index)
                continue
            }
            runs.append(Run(key: key, first: packet))
            open[key] = runs.count - 1
            last = (key, runs.count - 1)
        }
        return runs
    }

    struct RunKey: Hashable {
        let flowID: Int64
        let fileSequence: UInt32
    }

    /// A run being written: its entries as the JSON text SQLite will hold.
    struct Run {
        let key: RunKey
        let firstTimestamp: Int64
        let firstOffset: Int64
        private(set) var count = 0
        private(set) var entries: [UInt8] = [UInt8(ascii: "[")]

        init(key: RunKey, first packet: PacketRecord) {
            self.key = key
            firstTimestamp = packet.timestampNanoseconds
            firstOffset = key.fileSequence == 0 ? 0 : Int64(clamping: packet.location.offset)
            entries.reserveCapacity(256)
            _ = append(packet)
        }

        /// False when the packet cannot be told against the run's first one (an instant too far
        /// from it, an offset before it): it then starts a run of its own.
        mutating func append(_ packet: PacketRecord) -> Bool {
            let offset = key.fileSequence == 0 ? 0 : Int64(clamping: packet.location.offset)
            let (instant, instantOverflow) = packet.timestampNanoseconds.subtractingReportingOverflow(firstTimestamp)
            guard !instantOverflow, offset >= firstOffset else { return false }
            if count > 0 { entries.append(UInt8(ascii: ",")) }
            entries.append(UInt8(ascii: "["))
            entries.appendDecimal(instant)
            entries.append(UInt8(ascii: ","))
            entries.appendDecimal(Int64(packet.direction.rawValue))
            entries.append(UInt8(ascii: ","))
            entries.appendDecimal(Int64(packet.wireLength))
            entries.append(UInt8(ascii: ","))
            entries.appendDecimal(offset - firstOffset)
            entries.append(UInt8(ascii: "]"))
            count += 1
            return true
        }

        /// The entries with the array closed.
        var text: [UInt8] {
            var run = self
            return run.close()
        }

        /// Closes the array in place (no copy of the entries): the run takes no packet after it.
        mutating func close() -> [UInt8] {
            entries.append(UInt8(ascii: "]"))
            return entries
        }
    }

    /// Why a run's text could not be read: a damaged history, named by the run's row.
    struct Unreadable: Error {
        let reason: String
    }

    /// Reads a run's entries exactly as `Run` writes them (and as migration 11's
    /// json_group_array does): every number range-checked, nothing else accepted.
    static func entries(
        _ text: UnsafeBufferPointer<UInt8>, flowID: Int64, firstTimestamp: Int64, firstOffset: Int64, count expected: Int
    ) throws(Unreadable) -> [SessionCapturedPacket] {
        var reader = EntryReader(bytes: text)
        var entries: [SessionCapturedPacket] = []
        entries.reserveCapacity(max(0, min(expected, text.count / 8)))
        try reader.expect("[")
        if reader.peek == UInt8(ascii: "]") {
            reader.position += 1
        } else {
            while true {
                try reader.expect("[")
                let instant = try reader.integer(), direction = try reader.next(), length = try reader.next(), offset = try reader.next()
                try reader.expect("]")
                let (timestamp, timeOverflow) = firstTimestamp.addingReportingOverflow(instant)
                let (position, offsetOverflow) = firstOffset.addingReportingOverflow(offset)
                guard !timeOverflow, !offsetOverflow, position >= 0 else { throw Unreadable(reason: "an entry out of range") }
                guard let way = UInt8(exactly: direction).flatMap(Direction.init(rawValue:)) else {
                    throw Unreadable(reason: "direction \(direction)")
                }
                guard let wireLength = UInt32(exactly: length) else { throw Unreadable(reason: "wire length \(length)") }
                entries.append(SessionCapturedPacket(flowID: flowID, timestampNanoseconds: timestamp, direction: way, wireLength: wireLength, fileOffset: UInt64(position)))
                if reader.peek == UInt8(ascii: ",") { reader.position += 1; continue }
                try reader.expect("]")
                break
            }
        }
        guard reader.position == text.count else { throw Unreadable(reason: "bytes after the entries") }
        guard entries.count == expected else { throw Unreadable(reason: "\(entries.count) entries for a count of \(expected)") }
        return entries
    }

    private struct EntryReader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func expect(_ character: Unicode.Scalar) throws(Unreadable) {
            guard peek == UInt8(ascii: character) else { throw Unreadable(reason: "'\(character)' expected at byte \(position)") }
            position += 1
        }

        /// A comma, then an integer.
        mutating func next() throws(Unreadable) -> Int64 {
            try expect(",")
            return try integer()
        }

        mutating func integer() throws(Unreadable) -> Int64 {
            let negative = peek == UInt8(ascii: "-")
            if negative { position += 1 }
            var value: Int64 = 0
            var digits = 0
            while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                let digit = Int64(byte - UInt8(ascii: "0"))
                let (times, timesOverflow) = value.multipliedReportingOverflow(by: 10)
                // Accumulated negatively, so that Int64.min reads too.
                let (sum, sumOverflow) = times.subtractingReportingOverflow(digit)
                guard !timesOverflow, !sumOverflow else { throw Unreadable(reason: "a number out of range at byte \(position)") }
                value = sum
                digits += 1
                position += 1
            }
            guard digits > 0 else { throw Unreadable(reason: "a number expected at byte \(position)") }
            if negative { return value }
            guard value != .min else { throw Unreadable(reason: "a number out of range at byte \(position)") }
            return -value
        }
    }
}

extension [UInt8] {
    /// ASCII digits without a String in between: this runs four times per packet.
    mutating func appendDecimal(_ value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        guard magnitude > 0 else { append(UInt8(ascii: "0")); return }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0
        // At most 20 digits; written backwards into 24 bytes on the stack, then copied out in order.
        Swift.withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[23 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
        }
        Swift.withUnsafeBytes(of: &digits) { buffer in append(contentsOf: buffer[(24 - count)...]) }
    }
}
