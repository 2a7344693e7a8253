import Foundation
import TunnelVisionModel

/// The text forms of the few flow readings that are lists: kept readable for `sqlite3`.
enum FlowCoding {
    /// Written by hand rather than through JSONSerialization: a flow is written at every flush,
    /// and the daemon's ingest rate is bounded by what a flush costs.
    static func json(_ strings: [String]) -> String {
        "[" + strings.map(JSONText.quoted).joined(separator: ",") + "]"
    }

    static func strings(_ text: String) -> [String] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String] ?? []
    }

    /// "0304 0303": hex wire values in the client's order.
    static func versionsText(_ versions: [TLSProtocolVersion]) -> String {
        versions.map { String($0.rawValue, radix: 16) }.joined(separator: " ")
    }

    static func versions(_ text: String) -> [TLSProtocolVersion] {
        text.split(separator: " ").compactMap { UInt16($0, radix: 16).map { TLSProtocolVersion($0) } }
    }

    static func certificatesJSON(_ reading: ServerCertificateReading) -> String {
        switch reading {
        case .presented(let chain, let complete):
            return "{\"chain\":[" + chain.map(certificateJSON).joined(separator: ",") + "],\"complete\":\(complete),\"kind\":\"presented\"}"
        case .notSent(let absence):
            return "{\"absence\":\(absence.rawValue),\"kind\":\"notSent\"}"
        }
    }

    static func certificates(_ text: String) -> ServerCertificateReading? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else { return nil }
        switch object["kind"] as? String {
        case "presented":
            let chain = (object["chain"] as? [[String: Any]] ?? []).compactMap(certificate)
            return .presented(chain: chain, chainIsComplete: object["complete"] as? Bool ?? false)
        case "notSent":
            return (object["absence"] as? Int).flatMap { CertificateAbsence(rawValue: UInt8(truncatingIfNeeded: $0)) }.map { .notSent($0) }
        default:
            return nil
        }
    }

    private static func certificateJSON(_ certificate: CertificateSummary) -> String {
        var fields = ["\"issuer\":" + JSONText.quoted(certificate.issuer)]
        if let notAfter = certificate.notAfter { fields.append("\"notAfter\":\(notAfter.nanosecondsSinceEpoch)") }
        if let notBefore = certificate.notBefore { fields.append("\"notBefore\":\(notBefore.nanosecondsSinceEpoch)") }
        fields += [
            "\"sha256\":" + JSONText.quoted(certificate.sha256), "\"subject\":" + JSONText.quoted(certificate.subject),
            "\"truncated\":\(certificate.namesTruncated)",
        ]
        return "{" + fields.joined(separator: ",") + "}"
    }

    private static func certificate(_ object: [String: Any]) -> CertificateSummary? {
        guard let subject = object["subject"] as? String, let issuer = object["issuer"] as? String else { return nil }
        func date(_ key: String) -> Date? {
            (object[key] as? NSNumber).map { Date(nanosecondsSinceEpoch: $0.int64Value) }
        }
        return CertificateSummary(
            subject: subject, issuer: issuer, notBefore: date("notBefore"), notAfter: date("notAfter"),
            sha256: object["sha256"] as? String ?? "", namesTruncated: object["truncated"] as? Bool ?? false)
    }
}
