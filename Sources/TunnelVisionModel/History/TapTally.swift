import Foundation

/// How far the history had caught up with the tap in one capture session at an instant:
/// the packets the tap had handed the recorder by then, and how many of them the history accounts
/// for — each in a committed batch (with its rows, or none when it could not be decoded) or in a
/// count of packets without a row. Counted in the tap's units: a super-packet the kernel handed as
/// one counts once, however many rows its segments become.
///
/// The recorder writes one with every batch, in the batch's transaction, and at every heartbeat.
/// A capture session that did not stop cleanly lost at least `unaccounted` packets.
public struct TapTally: Sendable, Hashable {
    public var handed: UInt64
    public var accounted: UInt64
    public var at: Date

    /// `handed` is raised to `accounted` when a counter was read a moment before another: the
    /// tally never claims more packets were lost than the tap had handed over.
    public init(handed: UInt64, accounted: UInt64, at: Date) {
        self.handed = max(handed, accounted)
        self.accounted = accounted
        self.at = at
    }

    /// Handed over and not accounted for: lost, if the daemon stopped right after this tally.
    public var unaccounted: UInt64 { handed - accounted }
}
