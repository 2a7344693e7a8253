/// Text into HTML: every value from the history, a form or a command's output goes through
/// `escaped` before it reaches a page, in element text and in quoted attributes alike.
public enum HTML {
    public static func escaped(_ text: String) -> String {
        // Byte by byte: every character escaped here is ASCII, and no byte of a longer UTF-8
        // sequence is below 0x80, so the other bytes pass as they are (a page of 10,000 flows'
        // findings is escaped in a millisecond, not in tens of them scalar by scalar).
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 64)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): bytes.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): bytes.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): bytes.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): bytes.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): bytes.append(contentsOf: "&#39;".utf8)
            // A NUL or a stray control would let a browser's parser guess; it is shown, not sent.
            case 0x00...0x08, 0x0B, 0x0C, 0x0E...0x1F, 0x7F:
                bytes.append(contentsOf: "&#xFFFD;".utf8)
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The text without the line breaks it begins and ends with: what `trimmingCharacters(in:
    /// .newlines)` gives, without Foundation's copy of the whole text through UTF-16.
    public static func trimmingLineBreaks(_ text: String) -> String {
        var trimmed = Substring(text)
        while trimmed.first?.isNewline == true { trimmed.removeFirst() }
        while trimmed.last?.isNewline == true { trimmed.removeLast() }
        return String(trimmed)
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
