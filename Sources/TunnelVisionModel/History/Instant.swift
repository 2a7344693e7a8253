import Foundation

/// A moment as the history keeps it: nanoseconds since the Unix epoch (an Int64 holds
/// 1677-09-21 to 2262-04-11). A packet's timestamp, a flow's first and last sight, a marker and
/// a request stay this from the packet to the row and to every document: a `Date` (a Double of
/// seconds) cannot tell instants closer than about 240 ns apart today, and the rules compare a
/// flow with a consent marker finer than that. A `Date` is made only where Foundation needs one
/// (formatting a local time, a PDF's text).
public struct Instant: Sendable, Hashable, Comparable, Encodable, CustomStringConvertible {
    public var nanosecondsSinceEpoch: Int64

    public init(nanosecondsSinceEpoch: Int64) {
        self.nanosecondsSinceEpoch = nanosecondsSinceEpoch
    }

    /// The nearest nanosecond a Double of seconds tells apart (`Date.nanosecondsSinceEpoch`).
    public init(_ date: Date) {
        nanosecondsSinceEpoch = date.nanosecondsSinceEpoch
    }

    /// The wall clock to the nanosecond the kernel gives.
    public static func now() -> Instant {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Instant(nanosecondsSinceEpoch: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
    }

    /// For Foundation's formatting only: rounded to what a Double holds.
    public var date: Date { Date(nanosecondsSinceEpoch: nanosecondsSinceEpoch) }

    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch
    }

    /// Saturating at the ends of the range, as `Date.nanosecondsSinceEpoch` does, so that a
    /// retention cut-off far back never traps.
    public func advanced(byNanoseconds nanoseconds: Int64) -> Instant {
        let (sum, overflow) = nanosecondsSinceEpoch.addingReportingOverflow(nanoseconds)
        guard overflow else { return Instant(nanosecondsSinceEpoch: sum) }
        return Instant(nanosecondsSinceEpoch: nanoseconds < 0 ? .min : .max)
    }

    /// Seconds since the epoch rounded to the nanosecond, as `Date`'s initialiser of that name
    /// reads them (a fixture's instant, a person's input).
    public init(timeIntervalSince1970 seconds: Double) {
        self.init(Date(timeIntervalSince1970: seconds))
    }

    /// `seconds` rounded to the nanosecond.
    public func addingTimeInterval(_ seconds: Double) -> Instant {
        advanced(byNanoseconds: Int64(exactly: (seconds * 1_000_000_000).rounded()) ?? (seconds < 0 ? .min : .max))
    }

    /// From `earlier` to this one, in nanoseconds (negative if `earlier` is later).
    public func nanoseconds(since earlier: Instant) -> Int64 {
        nanosecondsSinceEpoch &- earlier.nanosecondsSinceEpoch
    }

    /// From `earlier` to this one, in seconds, for a duration a person reads.
    public func seconds(since earlier: Instant) -> Double {
        Double(nanoseconds(since: earlier)) / 1_000_000_000
    }

    /// ISO 8601 in UTC with nine fractional digits: "2026-10-09T14:03:07.250000123Z", exact.
    public var description: String { String(decoding: iso8601Bytes, as: UTF8.self) }

    /// As `description`, which is how every JSON document and `--json` writes an instant.
    public func encode(to encoder: any Encoder) throws {
        var single = encoder.singleValueContainer()
        try single.encode(description)
    }
}

/// Instants on disk and on the hot path are nanoseconds since the Unix epoch; these convert a
/// `Date` from Foundation (the wall clock of an administrative record, a certificate's validity).
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
