import Foundation

/// Instants on disk and on the hot path are nanoseconds since the Unix epoch, which an Int64
/// holds from 1677-09-21 to 2262-04-11.
extension Date {
    /// The instants the history can store exactly: every whole second an Int64 of nanoseconds reaches.
    public static let storableInstants: ClosedRange<Date> =
        Date(timeIntervalSince1970: -9_223_372_036) ... Date(timeIntervalSince1970: 9_223_372_036)

    public init(nanosecondsSinceEpoch ns: Int64) {
        self.init(timeIntervalSince1970: Double(ns) / 1_000_000_000)
    }

    /// Whether the history can store this instant as it is; an input refuses one that it cannot.
    public var isStorable: Bool { Self.storableInstants.contains(self) }

    /// Rounded to the nearest nanosecond that a Double can tell apart. An instant outside
    /// `storableInstants` saturates to the nearest end, so arithmetic on instants (a retention
    /// cut-off a million days back, a certificate valid until 9999) never traps; inputs refuse
    /// such instants before they become history (`isStorable`).
    public var nanosecondsSinceEpoch: Int64 {
        let interval = timeIntervalSince1970
        guard Self.storableInstants.contains(self) else { return interval.isNaN || interval < 0 ? Int64.min : Int64.max }
        let seconds = interval.rounded(.down)
        let fraction = interval - seconds
        return Int64(seconds) * 1_000_000_000 + Int64((fraction * 1_000_000_000).rounded())
    }
}
