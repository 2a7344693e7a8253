import Foundation
import TunnelVisionModel

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

    /// ISO 8601 in UTC with nine fractional digits: "2026-10-09T14:03:07.250000123Z" (the
    /// instant's own `description`). The rules compare instants finer than a millisecond (a flow
    /// and a consent marker in one millisecond), so a reader must see what they compared.
    public static func instant(_ instant: Instant) -> String {
        instant.description
    }

    /// An administrative wall-clock `Date` (an export's, a certificate's) written the same way.
    public static func instant(_ date: Date) -> String {
        Instant(date).description
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

    /// The whole second the instant falls in, by integer arithmetic: never rounded into the next.
    public init(_ instant: Instant) {
        let seconds = Instant.floorDivided(instant.nanosecondsSinceEpoch, by: 1_000_000_000).quotient
        let (days, secondOfDay) = Instant.floorDivided(seconds, by: 86_400)
        let civil = Instant.civilDate(daysSinceEpoch: days)
        (year, month, day) = (Int(civil.year), Int(civil.month), Int(civil.day))
        (hour, minute, second) = (Int(secondOfDay / 3600), Int(secondOfDay / 60 % 60), Int(secondOfDay % 60))
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
