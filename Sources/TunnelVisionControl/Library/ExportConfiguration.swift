import Foundation
import TunnelVisionExport

/// What `tvctl export` reads of the daemon's configuration file: only `timestamp_url`, the
/// time-stamping authority a bundle's manifest is stamped by (off when the file names none).
/// The file is `$TUNNELVISION_CONFIG`, else the installed one; a file that is not there names none.
struct ExportConfiguration {
    static let defaultPath = "/etc/tunnelvision/tunnelvisiond.conf"
    static let environmentKey = "TUNNELVISION_CONFIG"
    static let key = "timestamp_url"

    let path: String
    /// The URL as written; nil: none is configured.
    let timestampURL: String?

    init(environment: [String: String]) throws(ControlError) {
        path = environment[Self.environmentKey].flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultPath
        guard let data = FileManager.default.contents(atPath: path) else {
            guard !FileManager.default.fileExists(atPath: path) else { throw .refusal(.configurationUnreadable(path: path)) }
            timestampURL = nil
            return
        }
        var found: String?
        // The daemon's syntax: `key = value`, `#` to the end of a line is a comment.
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let text = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let parts = text.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == Self.key else { continue }
            found = parts[1].trimmingCharacters(in: .whitespaces)
        }
        timestampURL = found.flatMap { $0.isEmpty || $0 == "off" ? nil : $0 }
    }

    /// The plan an export follows: no TSA, one skipped by `--no-timestamp`, or one asked.
    func timestampPlan(skip: Bool) throws(ControlError) -> EvidenceTimestampPlan {
        guard let timestampURL else { return .notConfigured }
        if skip { return .skipped(url: timestampURL) }
        guard let authority = TimestampAuthority(url: timestampURL) else {
            throw .refusal(.timestampURLInvalid(timestampURL, path: path))
        }
        return .requested(authority)
    }
}
