/// JSON written by hand where a writer cannot afford an encoder per line: the history's list
/// columns (written at every flush) and the relay tool's one line per event.
public enum JSONText {
    /// A JSON string literal (RFC 8259 § 7): quotes, backslashes and control characters escaped,
    /// everything else as it is.
    public static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                result += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
