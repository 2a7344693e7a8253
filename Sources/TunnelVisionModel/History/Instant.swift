import Foundation

/// Instants on disk and on the hot path are nanoseconds since the Unix epoch, which an Int64
/// holds from 1677-09-21 to 2262-04-11.
extension Date {
    public init(nanosecondsSinceEpoch ns: Int64) {
        self.init(timeIntervalSince1970: Double(ns) / 1_000_000_000)
    }

    /// Whether the history can store this instant as it is (every whole second an Int64 of
    /// nanoseconds reaches); an input refuses one that it cannot. Compared as Doubles: Date's own `<=` is `!(>)`, which a NaN instant passes.
    public var isStorable: Bool {
        let interval = timeIntervalSince1970
        return interval >= -9_223_372_036 && interval <= 9_223_372_036
    }

    /// Rounded to the nearest nanosecond that a Double can tell apart. An instant that is not
    /// `isStorable` saturates to the nearest end, so arithmetic on instants (a retention
    /// cut-off a million days back, a certificate valid until 9999) never traps; inputs refuse
    /// such instants before they become history (`isStorable`).
    public var nanosecondsSinceEpoch: Int64 {
        let interval = timeIntervalSince1970
        guard isStorable else { return interval.isNaN || interval < 0 ? Int64.min : Int64.max }
        let seconds = interval.rounded(.down)
        let fraction = interval - seconds
        return Int64(seconds) * 1_000_000_000 + Int64((fraction * 1_000_000_000).rounded())
    }
}
