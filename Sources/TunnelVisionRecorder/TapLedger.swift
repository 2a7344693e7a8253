import Foundation
import TunnelVisionModel

/// The recorder's side of the `TapTally`: of the packets the tap handed over, how many the
/// history accounts for, in the tap's units (one per queue slot, however many segments it holds).
/// A packet is accounted once the history holds its fate — its batch committed, or its count of
/// packets without a row written — never before: until then a kill -9 loses it, and the next start
/// counts it from the last tally written.
struct TapLedger: Sendable, Hashable {
    /// Settled in the history.
    private(set) var accounted: UInt64 = 0
    /// Taken off a queue and fed to the engine since the last batch was taken.
    private(set) var taken: UInt64 = 0
    /// Without a row, their count not yet written: settled by the tally that writes it.
    private(set) var uncounted: UInt64 = 0

    /// Packets whose fate the history does not hold yet.
    var hasUnsettled: Bool { taken > 0 || uncounted > 0 }

    /// One slot off either queue.
    mutating func took() { taken += 1 }

    /// The packets of the batch taken from the engine now: every one taken since the last batch.
    mutating func takeBatch() -> UInt64 {
        defer { taken = 0 }
        return taken
    }

    /// The tally to write with a batch of `packets`: true only if the batch commits.
    func tally(withBatchOf packets: UInt64, handed: UInt64, at date: Date) -> TapTally {
        TapTally(handed: handed, accounted: accounted + packets, at: date)
    }

    /// The batch committed (or had nothing to write): its packets are settled.
    mutating func committed(_ packets: UInt64) { accounted += packets }

    /// The batch was refused, or packets found no room at all: settled once their count is written.
    mutating func lost(_ packets: UInt64) { uncounted += packets }

    /// The tally to write with the counts of packets without a row not yet written.
    func tallyWithCountedLosses(handed: UInt64, at date: Date) -> TapTally {
        TapTally(handed: handed, accounted: accounted + uncounted, at: date)
    }

    /// That tally was written.
    mutating func lossesCounted() {
        accounted += uncounted
        uncounted = 0
    }
}
