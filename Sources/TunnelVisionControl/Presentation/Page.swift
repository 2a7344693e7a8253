/// What a command shows a person, built line by line: headings, facts, tables and notes.
/// Styling is applied as lines are added, and only where the style allows it.
struct Page {
    let style: TextStyle
    private(set) var lines: [String] = []

    init(style: TextStyle) {
        self.style = style
    }

    mutating func heading(_ text: String) { lines.append(style.bold(text)) }
    mutating func line(_ text: String) { lines.append(text) }
    mutating func blank() { lines.append("") }

    /// Label and value, the labels in one column.
    mutating func facts(_ pairs: [(String, String)]) {
        let width = pairs.map(\.0.count).max() ?? 0
        lines += pairs.map { label, value in
            "  " + label + String(repeating: " ", count: width - label.count + 2) + value
        }
    }

    mutating func table(_ table: TextTable) { lines += table.lines(style: style) }

    /// A table, or the sentence that says why there is none.
    mutating func table(_ table: TextTable, orWhenEmpty sentence: String) {
        table.rows.isEmpty ? line(sentence) : self.table(table)
    }

    var text: String { lines.map { $0 + "\n" }.joined() }
}
