import Foundation
import TunnelVisionEvidence
import TunnelVisionModel

/// How instants, sizes and durations are written: local time for people, UTC for scripts.
public enum Formatting {
    /// "14:03:07", the second the instant falls in (never rounded up into the next).
    public static func time(_ date: Date, in zone: TimeZone = .current) -> String {
        let parts = components(of: date, in: zone)
        return "\(pad(parts.hour, 2)):\(pad(parts.minute, 2)):\(pad(parts.second, 2))"
    }

    /// "2026-10-01 14:03:07".
    public static func dateTime(_ date: Date, in zone: TimeZone = .current) -> String {
        let parts = components(of: date, in: zone)
        return "\(pad(parts.year, 4))-\(pad(parts.month, 2))-\(pad(parts.day, 2)) " + time(date, in: zone)
    }

    /// `time(_:in:)` of the whole second the instant falls in: its nanoseconds cut, so that a
    /// Double's rounding cannot carry it into the next second.
    public static func time(_ instant: Instant, in zone: TimeZone = .current) -> String {
        time(wholeSecond(of: instant), in: zone)
    }

    public static func dateTime(_ instant: Instant, in zone: TimeZone = .current) -> String {
        dateTime(wholeSecond(of: instant), in: zone)
    }

    private static func wholeSecond(of instant: Instant) -> Date {
        Date(timeIntervalSince1970: Double(Instant.floorDivided(instant.nanosecondsSinceEpoch, by: 1_000_000_000).quotient))
    }

    /// "2026-10-01T12:03:07.250000000Z": what every `--json` instant looks like, the bundle's too.
    public static func iso8601(_ date: Date) -> String {
        EvidenceJSON.instant(date)
    }

    public static func iso8601(_ instant: Instant) -> String {
        instant.description
    }

    /// Reads "2026-10-01T09:00:00Z" (fractional seconds and offsets allowed).
    public static func instant(from text: String) -> Date? {
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        return withFraction.date(from: text) ?? plain.date(from: text)
    }

    /// "812 B", "1.4 kB", "23.0 MB": the evidence report's units, so both say a size alike.
    public static func bytes(_ count: UInt64) -> String {
        EvidenceWording.Report.bytes(count)
    }

    /// "4 s", "3 min 12 s", "2 h 05 min".
    public static func duration(_ interval: TimeInterval) -> String {
        let seconds = Int(max(0, interval).rounded(.down))
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3600 { return "\(seconds / 60) min \(pad(seconds % 60, 2)) s" }
        return "\(seconds / 3600) h \(pad(seconds % 3600 / 60, 2)) min"
    }

    /// "1,234": counts people read.
    public static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return (value < 0 ? "-" : "") + grouped
    }

    private struct Parts { let year, month, day, hour, minute, second: Int }

    private static func components(of date: Date, in zone: TimeZone) -> Parts {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        // Whole seconds first, so that 14:03:07.9 stays 14:03:07.
        let floored = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: floored)
        return Parts(
            year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0,
            hour: parts.hour ?? 0, minute: parts.minute ?? 0, second: parts.second ?? 0)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
