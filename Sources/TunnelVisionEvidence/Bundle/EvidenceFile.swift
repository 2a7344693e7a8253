import Foundation

/// One file of the bundle, encoded, with the name it has in the folder.
public struct EvidenceFile: Sendable, Hashable {
    public let name: String
    public let data: Data

    public init(name: String, data: Data) {
        self.name = name
        self.data = data
    }
}

/// The names of the bundle's files: one place, because the manifest, the exporter and the
/// checks all refer to them.
public enum EvidenceFileName {
    public static let session = "session.json"
    public static let flows = "flows.json"
    public static let flowsCSV = "flows.csv"
    public static let findings = "findings.json"
    public static let capture = "capture.pcapng"
    public static let captureDocument = "capture.json"
    public static let report = "report.pdf"
    public static let manifest = "manifest.json"
    /// The gateway's signature of manifest.json, in minisign's format.
    public static let signature = "manifest.json.minisig"
    /// A time-stamping authority's RFC 3161 reply over manifest.json's SHA-256.
    public static let timestamp = "manifest.json.tsr"

    /// What the manifest cannot list: itself and what is made of it after it is written.
    public static let beyondManifest: Set<String> = [manifest, signature, timestamp]
}

/// How every JSON document of the bundle is written: sorted keys and UTC instants with
/// fractional seconds, so that two exports of one session differ only where the export does.
public enum EvidenceJSON {
    public static func encode(_ value: some Encodable) throws -> Data {
        var bytes = try EvidenceJSONEncoder.encode(value)
        bytes.append(0x0A)
        return Data(bytes)
    }

    /// A shape described for the writer, whole: pretty for a document, or one line of a stream.
    public static func encode(_ value: some EvidenceJSONWritable, layout: EvidenceJSONWriter.Layout = .pretty) throws -> Data {
        var json = EvidenceJSONWriter(layout: layout)
        try json.value(value)
        json.bytes.append(0x0A)
        return Data(json.bytes)
    }

    /// The bytes of `encode(_:)`, written out in pieces as they are made: a long session's
    /// flows.json is never held whole.
    public static func write(_ value: some EvidenceJSONWritable, to output: any EvidenceOutput) throws {
        var json = EvidenceJSONWriter(output: output)
        try json.value(value)
        json.bytes.append(0x0A)
        try json.flush()
    }

    /// ISO 8601 in UTC with nine fractional digits: "2026-10-09T14:03:07.250000123Z". The rules
    /// compare instants finer than a millisecond (a flow and a consent marker in one millisecond),
    /// so a reader must see what they compared.
    public static func instant(_ date: Date) -> String {
        String(decoding: instantBytes(date), as: UTF8.self)
    }

    /// `instant(_:)` as UTF-8.
    static func instantBytes(_ date: Date) -> [UInt8] {
        var bytes: [UInt8] = []
        appendInstant(nanosecondsSinceEpoch: date.nanosecondsSinceEpoch, to: &bytes)
        return bytes
    }

    /// Written digit by digit: every flow has two or three instants, and String(format:) was a
    /// tenth of an export.
    static func appendInstant(nanosecondsSinceEpoch: Int64, to bytes: inout [UInt8]) {
        let (seconds, nanoseconds) = nanosecondsSinceEpoch.floorDivided(by: 1_000_000_000)
        let (days, secondOfDay) = seconds.floorDivided(by: 86_400)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        guard (0...9999).contains(year) else {
            return bytes += Array(String(
                format: "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%09lldZ", year, month, day,
                secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60, nanoseconds).utf8)
        }
        let start = bytes.count
        bytes += "0000-00-00T00:00:00.000000000Z".utf8
        func digits(_ value: Int64, _ count: Int, at end: Int) {
            var rest = value
            for index in stride(from: start + end - 1, through: start + end - count, by: -1) {
                bytes[index] = 0x30 + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
        }
        digits(year, 4, at: 4)
        digits(month, 2, at: 7)
        digits(day, 2, at: 10)
        digits(secondOfDay / 3600, 2, at: 13)
        digits(secondOfDay / 60 % 60, 2, at: 16)
        digits(secondOfDay % 60, 2, at: 19)
        digits(nanoseconds, 9, at: 29)
    }

    /// The proleptic Gregorian date of a day count from 1970-01-01, by the era arithmetic of
    /// H. Hinnant's days_from_civil inverse: no calendar object on the path of every flow.
    static func civilDate(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = shifted.floorDivided(by: 146_097).quotient
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Int64 {
    /// Quotient rounded down and a remainder that is never negative: an instant before 1970 too.
    func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}

/// An instant cut into its UTC fields, to the second: how the report and the bundle's name
/// write it.
public struct EvidenceUTCStamp: Sendable, Hashable {
    public let year, month, day, hour, minute, second: Int

    public init(_ date: Date) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .gmt
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        (year, month, day) = (parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        (hour, minute, second) = (parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }

    /// "2026-10-09 14:03:07".
    public var readable: String {
        String(format: "%04d-%02d-%02d %02d:%02d:%02d", year, month, day, hour, minute, second)
    }

    /// "20261009-140307".
    public var compact: String {
        String(format: "%04d%02d%02d-%02d%02d%02d", year, month, day, hour, minute, second)
    }
}
