import Foundation
import TunnelVisionModel

/// The text forms of the few flow readings that are lists: kept readable for `sqlite3`.
enum FlowCoding {
    static func json(_ strings: [String]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: strings),
              let text = String(data: data, encoding: .utf8) else { return "[]" }
        return text
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
        let object: [String: Any]
        switch reading {
        case .presented(let chain, let complete):
            object = ["kind": "presented", "complete": complete, "chain": chain.map(certificateObject)]
        case .notSent(let absence):
            object = ["kind": "notSent", "absence": Int(absence.rawValue)]
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
              let text = String(data: data, encoding: .utf8) else { return "{}" }
        return text
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

    private static func certificateObject(_ certificate: CertificateSummary) -> [String: Any] {
        var object: [String: Any] = [
            "subject": certificate.subject, "issuer": certificate.issuer,
            "sha256": certificate.sha256, "truncated": certificate.namesTruncated,
        ]
        object["notBefore"] = certificate.notBefore?.nanosecondsSinceEpoch
        object["notAfter"] = certificate.notAfter?.nanosecondsSinceEpoch
        return object
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
