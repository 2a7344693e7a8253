import Foundation
import TunnelVisionModel

/// A history row as the archive's `row` column holds it: integers as numbers, text as strings,
/// bytes as `{"blob": base64}`, a real as `{"real": text}`; NULL as null. Every value keeps
/// its kind, so the row that comes back is the row that went in.
enum RowJSON {
    static func text(_ row: HistoryRow) -> String {
        "{" + row.columns.map { JSONText.quoted($0.name) + ":" + text($0.value) }.joined(separator: ",") + "}"
    }

    private static func text(_ value: RowValue) -> String {
        switch value {
        case .null: "null"
        case .integer(let value): String(value)
        case .real(let value): "{\"real\":\"\(value)\"}"
        case .text(let value): JSONText.quoted(value)
        case .blob(let bytes): "{\"blob\":\"\(Data(bytes).base64EncodedString())\"}"
        }
    }

    /// Nil when the text is not a row this coding wrote.
    static func row(_ text: String) -> HistoryRow? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else { return nil }
        var columns: [(name: String, value: RowValue)] = []
        for name in object.keys.sorted() {
            guard let value = value(object[name]) else { return nil }
            columns.append((name, value))
        }
        return HistoryRow(columns: columns)
    }

    private static func value(_ any: Any?) -> RowValue? {
        switch any {
        case nil, is NSNull: return .null
        case let string as String: return .text(string)
        case let number as NSNumber: return .integer(number.int64Value)
        case let object as [String: Any]:
            if let base64 = object["blob"] as? String, let data = Data(base64Encoded: base64) { return .blob(Array(data)) }
            if let real = (object["real"] as? String).flatMap(Double.init) { return .real(real) }
            return nil
        default: return nil
        }
    }
}
