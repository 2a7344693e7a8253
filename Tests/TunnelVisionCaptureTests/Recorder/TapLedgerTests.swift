import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionRecorder

/// The arithmetic of the count of packets a daemon killed without a clean stop lost: a
/// packet is accounted only once the history holds its fate.
@Suite struct TapLedgerTests {
    private let now = Date(timeIntervalSince1970: 1_790_000_000)

    @Test func aBatchsPacketsAreAccountedOnlyOnceItCommits() {
        var ledger = TapLedger()
        for _ in 0..<7 { ledger.took() }
        let inBatch = ledger.takeBatch()
        #expect(inBatch == 7 && ledger.taken == 0)
        // Written in the batch's own transaction: true only if it commits.
        #expect(ledger.tally(withBatchOf: inBatch, handed: 9, at: now) == TapTally(handed: 9, accounted: 7, at: now))
        #expect(ledger.accounted == 0)
        ledger.committed(inBatch)
        for _ in 0..<3 { ledger.took() }
        // Taken, in the engine, not committed: a kill now loses them, and the next heartbeat's tally says so.
        #expect(ledger.tallyWithCountedLosses(handed: 12, at: now).unaccounted == 5)
    }

    @Test func packetsWithoutARowAreAccountedOnceTheirCountIsWritten() {
        var ledger = TapLedger()
        for _ in 0..<4 { ledger.took() }
        ledger.lost(ledger.takeBatch())  // the history refused the batch
        ledger.lost(2)                   // both queues full
        #expect(ledger.tally(withBatchOf: 0, handed: 6, at: now).unaccounted == 6)
        #expect(ledger.tallyWithCountedLosses(handed: 6, at: now) == TapTally(handed: 6, accounted: 6, at: now))
        ledger.lossesCounted()
        #expect(ledger.accounted == 6 && ledger.uncounted == 0)
    }

    @Test func aTallyNeverCountsMoreLostThanWasHandedOver() {
        // The tap's counter read a moment before the recorder's: never a negative loss, never a trap.
        let tally = TapTally(handed: 3, accounted: 5, at: now)
        #expect(tally.handed == 5 && tally.unaccounted == 0)
        #expect(TapTally(handed: 10, accounted: 4, at: now).unaccounted == 6)
    }
}
