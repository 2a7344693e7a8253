import Foundation

/// Instants on disk and on the hot path are nanoseconds since the Unix epoch.
extension Date {
    public init(nanosecondsSinceEpoch ns: Int64) {
        self.init(timeIntervalSince1970: Double(ns) / 1_000_000_000)
    }

    /// Rounded to the nearest nanosecond that a Double can tell apart.
    public var nanosecondsSinceEpoch: Int64 {
        let seconds = timeIntervalSince1970.rounded(.down)
        let fraction = timeIntervalSince1970 - seconds
        return Int64(seconds) * 1_000_000_000 + Int64((fraction * 1_000_000_000).rounded())
    }
}
