/// A table for people: a header, columns as wide as their widest cell, two spaces between.
/// Styling is applied after the widths are taken, so escape codes never shift a column.
public struct TextTable: Sendable, Hashable {
    public enum Alignment: Sendable, Hashable { case left, right }

    public struct Column: Sendable, Hashable {
        public let title: String
        public let alignment: Alignment

        public init(_ title: String, _ alignment: Alignment = .left) {
            self.title = title
            self.alignment = alignment
        }
    }

    public let columns: [Column]
    public private(set) var rows: [[String]] = []

    public init(_ columns: [Column]) {
        self.columns = columns
    }

    /// A stored control character shows as \u{…} and cannot break the table's lines.
    public mutating func append(_ cells: [String]) {
        rows.append(cells.map(TerminalText.visible))
    }

    public func lines(style: TextStyle = .plain) -> [String] {
        let widths = columns.indices.map { index in
            ([columns[index].title] + rows.map { cell($0, index) }).map(\.count).max() ?? 0
        }
        func render(_ cells: [String], header: Bool) -> String {
            let padded = columns.indices.map { index in
                let text = cells[index]
                let gap = String(repeating: " ", count: widths[index] - text.count)
                let last = index == columns.count - 1
                switch columns[index].alignment {
                case .left: return last ? text : text + gap
                case .right: return gap + text
                }
            }
            let line = padded.joined(separator: "  ")
            return header ? style.bold(line) : line
        }
        return [render(columns.map(\.title), header: true)]
            + rows.map { row in render(columns.indices.map { cell(row, $0) }, header: false) }
    }

    public func rendered(style: TextStyle = .plain) -> String {
        lines(style: style).joined(separator: "\n") + "\n"
    }

    private func cell(_ row: [String], _ index: Int) -> String {
        row.indices.contains(index) ? row[index] : ""
    }
}
