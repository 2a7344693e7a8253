/// Text into HTML: every value from the history, a form or a command's output goes through
/// `escaped` before it reaches a page, in element text and in quoted attributes alike.
public enum HTML {
    public static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            // A NUL or a stray control would let a browser's parser guess; it is shown, not sent.
            case "\u{0}"..."\u{8}", "\u{B}", "\u{C}", "\u{E}"..."\u{1F}", "\u{7F}":
                result += "&#xFFFD;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}

/// A page's HTML as it is built: every `text` call escapes, `raw` is for the page's own markup.
public struct HTMLBuilder: Sendable {
    public private(set) var html = ""

    public init() {}

    public mutating func raw(_ markup: String) { html += markup }
    public mutating func text(_ value: String) { html += HTML.escaped(value) }

    /// `<tag attributes>text</tag>`, with the text and every attribute value escaped.
    public mutating func element(_ tag: String, _ attributes: [(String, String)] = [], text value: String) {
        open(tag, attributes)
        text(value)
        html += "</\(tag)>"
    }

    public mutating func open(_ tag: String, _ attributes: [(String, String)] = []) {
        html += "<" + tag
        for (name, value) in attributes { html += " \(name)=\"\(HTML.escaped(value))\"" }
        html += ">"
    }

    public mutating func close(_ tag: String) { html += "</\(tag)>" }
}
