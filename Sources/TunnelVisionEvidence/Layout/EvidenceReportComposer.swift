import Foundation

/// Turns blocks into slices: breaks every text into lines and decides which lines must not be
/// parted. Measures that must agree across the report — the label column of fact lists, the
/// columns of tables with the same headings — are taken once, from everything in it.
struct EvidenceReportComposer<Measurer: EvidenceReportTextMeasuring> {
    typealias Spacing = EvidenceReportSpacing

    let measurer: Measurer
    let frame: CGRect
    let labelWidth: CGFloat
    let columnWidths: [[String]: [CGFloat]]
    /// Tables are told apart by the order they come in.
    private var tablesComposed = 0

    init(sections: [EvidenceReportSection], frame: CGRect, measurer: Measurer) {
        self.measurer = measurer
        self.frame = frame
        var widestLabel: CGFloat = 0
        var natural: [[String]: [CGFloat]] = [:]
        for case let block in sections.flatMap(\.blocks) {
            switch block {
            case .facts(let facts):
                for fact in facts { widestLabel = max(widestLabel, measurer.width(of: fact.label, style: .factLabel)) }
            case .table(let table):
                var widths = natural[table.columns] ?? table.columns.map {
                    measurer.width(of: $0, style: .tableHeader)
                }
                for row in table.rows {
                    for (index, cell) in row.enumerated() {
                        widths[index] = max(widths[index], Self.longestLineWidth(of: cell, measurer: measurer))
                    }
                }
                natural[table.columns] = widths
            default:
                break
            }
        }
        labelWidth = min(widestLabel, frame.width * Spacing.labelShare)
        let padding = 2 * Spacing.cellPadding
        columnWidths = natural.mapValues { widths in
            EvidenceReportColumnWidths.filling(natural: widths.map { $0 + padding }, into: frame.width)
        }
    }

    private static func longestLineWidth(of text: String, measurer: Measurer) -> CGFloat {
        text.split(separator: "\n").map { measurer.width(of: String($0), style: .tableCell) }.max() ?? 0
    }

    // MARK: - Blocks

    func titleSlices(title: String, subtitle: String) -> [EvidenceReportSlice] {
        var slices = textSlices(title, style: .title, spaceBefore: 0, keepingAll: true)
        slices += textSlices(subtitle, style: .subtitle, spaceBefore: 2, keepingAll: true)
        let rule = EvidenceReportMark.fill(
            CGRect(x: frame.minX, y: 4, width: frame.width, height: Spacing.ruleThickness), .rule)
        slices.append(EvidenceReportSlice(height: 4 + Spacing.ruleThickness + Spacing.afterTitle, marks: [rule]))
        return slices
    }

    mutating func sectionSlices(_ section: EvidenceReportSection) -> [EvidenceReportSlice] {
        var slices = textSlices(section.title, style: .sectionTitle, spaceBefore: Spacing.beforeSectionTitle, keepingAll: true)
        let rule = EvidenceReportMark.fill(
            CGRect(x: frame.minX, y: 2, width: frame.width, height: Spacing.ruleThickness), .rule)
        slices.append(EvidenceReportSlice(height: 2 + Spacing.ruleThickness + 2, keepsWithNext: true, marks: [rule]))
        for (index, block) in section.blocks.enumerated() {
            var blockSlices = self.slices(of: block)
            if index == 0, !blockSlices.isEmpty { blockSlices[0].spaceBefore = 4 }
            // Facts under a heading (a requirement's) are one unit with it: a page breaks before
            // the heading rather than after its first facts, unless the whole is taller than a page.
            if case .facts = block, index > 0, case .heading = section.blocks[index - 1] {
                for slice in blockSlices.indices.dropLast() { blockSlices[slice].keepsWithNext = true }
            }
            // A statement quoted above a table (a finding's) heads it: a page never ends with it.
            if case .table = block, index > 0, case .note = section.blocks[index - 1], let last = slices.indices.last {
                slices[last].keepsWithNext = true
            }
            slices += blockSlices
        }
        if let last = slices.indices.last { slices[last].keepsWithNext = false }
        return slices
    }

    mutating func slices(of block: EvidenceReportBlock) -> [EvidenceReportSlice] {
        switch block {
        case .heading(let text):
            return textSlices(text, style: .heading, spaceBefore: Spacing.beforeHeading, keepingAll: true)
        case .paragraph(let text):
            return textSlices(text, style: .body, spaceBefore: Spacing.beforeBlock, keepingAll: false)
        case .note(let text):
            return noteSlices(text)
        case .facts(let facts):
            return factSlices(facts)
        case .table(let table):
            return tableSlices(table)
        }
    }

    /// Lines of one style. Unless all are kept together, a page may break anywhere but after
    /// the first line or before the last: neither end is ever left alone on a page.
    private func textSlices(
        _ text: String, style: EvidenceReportTextStyle, spaceBefore: CGFloat, keepingAll: Bool,
        indent: CGFloat = 0, bar: Bool = false
    ) -> [EvidenceReportSlice] {
        let height = measurer.lineHeight(of: style)
        let lines = measurer.lines(of: text, style: style, width: frame.width - indent)
        return lines.enumerated().map { index, line in
            var marks = [EvidenceReportMark.text(line, style: style, origin: CGPoint(x: frame.minX + indent, y: 0))]
            if bar {
                marks.insert(.fill(CGRect(x: frame.minX, y: 0, width: Spacing.quoteBarWidth, height: height), .quoteBar), at: 0)
            }
            return EvidenceReportSlice(
                height: height,
                spaceBefore: index == 0 ? spaceBefore : 0,
                keepsWithNext: keepingAll || Self.guardsAnEnd(line: index, of: lines.count),
                marks: marks)
        }
    }

    /// The first line holds on to the second and the last but one to the last.
    static func guardsAnEnd(line index: Int, of count: Int) -> Bool {
        index < count - 1 && (index == 0 || index == count - 2)
    }

    private func noteSlices(_ text: String) -> [EvidenceReportSlice] {
        textSlices(
            text, style: .note, spaceBefore: Spacing.beforeBlock, keepingAll: false,
            indent: Spacing.quoteIndent, bar: true)
    }

    private func factSlices(_ facts: [EvidenceReportFact]) -> [EvidenceReportSlice] {
        let valueX = frame.minX + labelWidth + Spacing.columnGap
        let valueWidth = max(frame.maxX - valueX, 1)
        let lineHeight = max(measurer.lineHeight(of: .factLabel), measurer.lineHeight(of: .factValue))
        var slices: [EvidenceReportSlice] = []
        for (factIndex, fact) in facts.enumerated() {
            let labels = measurer.lines(of: fact.label, style: .factLabel, width: max(labelWidth, 1))
            let values = measurer.lines(of: fact.value, style: .factValue, width: valueWidth)
            let count = max(labels.count, values.count)
            let isLastFact = factIndex == facts.count - 1
            for line in 0..<count {
                var marks: [EvidenceReportMark] = []
                if line < labels.count {
                    marks.append(.text(labels[line], style: .factLabel, origin: CGPoint(x: frame.minX, y: 0)))
                }
                if line < values.count {
                    marks.append(.text(values[line], style: .factValue, origin: CGPoint(x: valueX, y: 0)))
                }
                let isLastLine = line == count - 1
                slices.append(EvidenceReportSlice(
                    height: lineHeight,
                    spaceBefore: line > 0 ? 0 : (factIndex == 0 ? Spacing.beforeBlock : Spacing.betweenFacts),
                    keepsWithNext: !isLastLine || (fact.staysWithNext && !isLastFact),
                    marks: marks))
            }
        }
        return slices
    }

    private mutating func tableSlices(_ table: EvidenceReportTable) -> [EvidenceReportSlice] {
        let widths = columnWidths[table.columns] ?? table.columns.map { _ in frame.width / CGFloat(max(table.columns.count, 1)) }
        let tableID = tablesComposed
        tablesComposed += 1
        var header = rowSlices(table.columns, widths: widths, style: .tableHeader, band: true)
        for index in header.indices {
            header[index].keepsWithNext = true
            header[index].headerOfTable = tableID
        }
        if !header.isEmpty { header[0].spaceBefore = Spacing.beforeBlock + 2 }
        if table.rows.isEmpty, let last = header.indices.last { header[last].keepsWithNext = false }
        var slices = header
        for row in table.rows {
            var rowSlices = self.rowSlices(row, widths: widths, style: .tableCell, band: false)
            for index in rowSlices.indices { rowSlices[index].rowOfTable = tableID }
            slices += rowSlices
        }
        // A table kept whole holds every row to the next; the heading before it already holds on
        // to the table, so the paginator moves them to a new page together.
        if table.keptWhole { for index in slices.indices.dropLast() { slices[index].keepsWithNext = true } }
        return slices
    }

    /// One slice per line of the row: its cells side by side, padded above the first line and
    /// below the last, a rule under the last. A row is never parted unless it is taller than a page.
    private func rowSlices(_ cells: [String], widths: [CGFloat], style: EvidenceReportTextStyle, band: Bool) -> [EvidenceReportSlice] {
        let lineHeight = measurer.lineHeight(of: style)
        let padding = Spacing.cellPadding
        let cellLines = cells.enumerated().map { index, cell in
            measurer.lines(of: cell, style: style, width: max(widths[index] - 2 * padding, 1))
        }
        let count = cellLines.map(\.count).max() ?? 1
        var x: [CGFloat] = []
        var position = frame.minX
        for width in widths {
            x.append(position + padding)
            position += width
        }
        return (0..<count).map { line in
            let top: CGFloat = line == 0 ? Spacing.rowPadding : 0
            let bottom: CGFloat = line == count - 1 ? Spacing.rowPadding : 0
            let height = top + lineHeight + bottom
            var marks: [EvidenceReportMark] = []
            if band { marks.append(.fill(CGRect(x: frame.minX, y: 0, width: frame.width, height: height), .headerBand)) }
            for (column, lines) in cellLines.enumerated() where line < lines.count {
                marks.append(.text(lines[line], style: style, origin: CGPoint(x: x[column], y: top)))
            }
            if line == count - 1, !band {
                marks.append(.fill(
                    CGRect(x: frame.minX, y: height - Spacing.ruleThickness / 2, width: frame.width, height: Spacing.ruleThickness / 2),
                    .rule))
            }
            return EvidenceReportSlice(height: height, keepsWithNext: line < count - 1, marks: marks)
        }
    }
}
