import Foundation
import Testing
import TunnelVisionModel

/// Arithmetic on instants the history cannot hold saturates instead of
/// trapping (a keep_days of 1e308 once crashed the daemon at its first rotation), and inputs can
/// ask whether an instant is storable before it becomes history.
struct InstantRangeTests {
    @Test(arguments: [
        (1e308, Int64.max), (-1e308, Int64.min), (Double.infinity, Int64.max), (-Double.infinity, Int64.min),
        (Double.nan, Int64.min), (9_223_372_037, Int64.max), (-9_223_372_037, Int64.min),
    ] as [(Double, Int64)])
    func anInstantOutOfRangeSaturates(seconds: Double, nanoseconds: Int64) {
        #expect(Date(timeIntervalSince1970: seconds).nanosecondsSinceEpoch == nanoseconds)
        #expect(!Date(timeIntervalSince1970: seconds).isStorable)
    }

    @Test func theEndsOfTheRangeAreStoredExactlyToTheSecond() {
        let last = Date(timeIntervalSince1970: 9_223_372_036)
        let first = Date(timeIntervalSince1970: -9_223_372_036)
        #expect(last.isStorable && first.isStorable)
        #expect(last.nanosecondsSinceEpoch == 9_223_372_036_000_000_000)
        #expect(first.nanosecondsSinceEpoch == -9_223_372_036_000_000_000)
        #expect(Date(timeIntervalSince1970: 1_791_560_000.25).nanosecondsSinceEpoch == 1_791_560_000_250_000_000)
    }

    @Test func aRetentionCutOffAMillionDaysBackIsComputedWithoutATrap() {
        let cutOff = Date(timeIntervalSince1970: 1_791_560_000).addingTimeInterval(-1_000_000 * 86_400 * 1e6)
        #expect(cutOff.nanosecondsSinceEpoch == Int64.min)
    }
}
