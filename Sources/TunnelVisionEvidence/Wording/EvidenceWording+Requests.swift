import Foundation

/// What the report and findings.json say of the requests read inside inspected connections.
/// Each is a claim about what was seen: a request's method, the host it named, the size of its
/// body — never what the body meant.
extension EvidenceWording.Report {
    public static let requestsBeforeConsentHeading = "Requests before consent"

    /// Under the table, so that nobody reads it as every request the phone sent.
    public static let requestsBeforeConsentScope =
        "Requests read inside inspected connections and sent before the first consent marker. A body is given by its "
        + "size as framed on the wire; what it held is not read. The requests of connections that were not inspected, if they carried any, were not read."

    /// "12 requests with 48.0 kB of bodies to api.example before consent."
    public static func requestsBeforeConsent(count: Int, bodyBytes: Int64, host: String?) -> String {
        let requests = count == 1 ? "1 request" : "\(count) requests"
        let bodies = count == 1 ? "of body" : "of bodies"
        let target = host.map { "to \($0)" } ?? "that named no host"
        return "\(requests) with \(bytes(UInt64(max(bodyBytes, 0)))) \(bodies) \(target) before consent."
    }

    /// "812 B", "1.4 kB", "23.0 MB": decimal units, as disk sizes are sold; an exact count is
    /// in the documents beside the report.
    public static func bytes(_ count: UInt64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }

    public static func requestRowsOmitted(_ count: Int) -> String {
        "\(count) more requests are not shown here; every one is in findings.json."
    }

    /// The consent check's facts: on which basis its connections were judged.
    public static let judgedOnRequests = "Judged on requests read"
    public static let judgedOnConnectionStart = "Judged on the connection's start"
    public static let noRequestHost = "(none named)"
}
