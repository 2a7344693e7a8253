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
}

/// How every JSON document of the bundle is written: sorted keys and UTC instants with
/// fractional seconds, so that two exports of one session differ only where the export does.
public enum EvidenceJSON {
    public static func encode(_ value: some Encodable) throws -> Data {
        var bytes = try EvidenceJSONEncoder.encode(value)
        bytes.append(0x0A)
        return Data(bytes)
    }

    private static let instantStyle = Date.ISO8601FormatStyle(
        includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC") ?? .gmt)

    /// ISO 8601 in UTC with milliseconds: "2026-10-09T14:03:07.250Z".
    public static func instant(_ date: Date) -> String {
        date.formatted(instantStyle)
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
