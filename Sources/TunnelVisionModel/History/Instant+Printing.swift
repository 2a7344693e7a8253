import Foundation

extension Instant {
    /// `description` as UTF-8. Written digit by digit: every flow has two or three instants, and
    /// String(format:) was a tenth of an export.
    public var iso8601Bytes: [UInt8] {
        var bytes: [UInt8] = []
        appendISO8601(to: &bytes)
        return bytes
    }

    /// `iso8601Bytes` written at the end of `bytes`: the bundle's writer puts every flow's
    /// instants into its buffer without an array of their own.
    public func appendISO8601(to bytes: inout [UInt8]) {
        let (seconds, nanoseconds) = Self.floorDivided(nanosecondsSinceEpoch, by: 1_000_000_000)
        let (days, secondOfDay) = Self.floorDivided(seconds, by: 86_400)
        let (year, month, day) = Self.civilDate(daysSinceEpoch: days)
        guard (0...9999).contains(year) else {
            return bytes += String(
                format: "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%09lldZ", year, month, day,
                secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60, nanoseconds).utf8
        }
        let start = bytes.count
        bytes += repeatElement(0, count: 30)
        func digits(_ value: Int64, _ count: Int, at end: Int) {
            var rest = value
            for index in stride(from: start + end - 1, through: start + end - count, by: -1) {
                bytes[index] = 0x30 + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
        }
        digits(year, 4, at: 4)
        bytes[start + 4] = 0x2D
        digits(month, 2, at: 7)
        bytes[start + 7] = 0x2D
        digits(day, 2, at: 10)
        bytes[start + 10] = 0x54
        digits(secondOfDay / 3600, 2, at: 13)
        bytes[start + 13] = 0x3A
        digits(secondOfDay / 60 % 60, 2, at: 16)
        bytes[start + 16] = 0x3A
        digits(secondOfDay % 60, 2, at: 19)
        bytes[start + 19] = 0x2E
        digits(nanoseconds, 9, at: 29)
        bytes[start + 29] = 0x5A
    }

    /// The proleptic Gregorian date of a day count from 1970-01-01, by the era arithmetic of
    /// H. Hinnant's days_from_civil inverse: no calendar object on the path of every flow.
    public static func civilDate(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = floorDivided(shifted, by: 146_097).quotient
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Quotient rounded down and a remainder that is never negative: an instant before 1970 too.
    public static func floorDivided(_ value: Int64, by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}
