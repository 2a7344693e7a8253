import Foundation
import Testing
import TunnelVisionEvidence

/// A table kept whole goes to a page with its heading: no page ends with the heading or with
/// some of its rows while the whole would fit on one page.
struct KeptWholeTableTests {
    static func sections(keptWhole: Bool) -> [EvidenceReportSection] {
        [EvidenceReportSection(
            kind: .findings, title: "Findings",
            blocks: (0..<10).flatMap { id -> [EvidenceReportBlock] in
                [.paragraph(PaginationTests.words("p\(id)", 5 + id * 13 % 30)),
                 .heading("Requests \(id)"),
                 .table(EvidenceReportTable(
                    columns: ["Sent at", "Host", "Method", "Body bytes"],
                    rows: (0..<(2 + id % 6)).map { ["T\(id)R\($0)", "api.example", "POST", "\($0 * 512)"] },
                    keptWhole: keptWhole))]
            })]
    }

    static func layout(height: CGFloat, keptWhole: Bool) -> EvidenceReportLayout {
        EvidenceReportLayout(
            title: "Sample report", subtitle: "Project · 1.0 · session 1", sections: sections(keptWhole: keptWhole),
            geometry: EvidenceReportPageGeometry(size: CGSize(width: 420, height: height), margin: 20, footerHeight: 16),
            measuring: FixedWidthMeasurer())
    }

    /// The tables whose heading and rows came on more than one page, of those that fit on one.
    static func tablesParted(height: CGFloat, keptWhole: Bool) -> [Int] {
        let layout = layout(height: height, keptWhole: keptWhole)
        let unbroken = Self.layout(height: 1_000_000, keptWhole: keptWhole)
        var pagesOf: [Int: Set<Int>] = [:]
        for page in layout.pages {
            for (text, _) in PaginationTests.texts(page.body) {
                if text.hasPrefix("Requests "), let id = Int(text.dropFirst(9)) { pagesOf[id, default: []].insert(page.number) }
                if text.hasPrefix("T"), let r = text.firstIndex(of: "R"), let id = Int(text.dropFirst().prefix(upTo: r)) {
                    pagesOf[id, default: []].insert(page.number)
                }
            }
        }
        return pagesOf.filter { $0.value.count > 1 && tableHeight($0.key, in: unbroken) <= layout.bodyFrame.height }
            .map(\.key).sorted()
    }

    /// From the heading's top to the last row's bottom on the one unbroken page.
    static func tableHeight(_ id: Int, in layout: EvidenceReportLayout) -> CGFloat {
        let marks = layout.pages[0].body.filter { mark in
            guard let text = mark.text else { return false }
            return text == "Requests \(id)" || text.hasPrefix("T\(id)R")
        }
        guard let top = marks.map(\.frame.minY).min(), let bottom = marks.map(\.frame.maxY).max() else { return 0 }
        return bottom - top + 20
    }

    @Test(arguments: PaginationTests.heights)
    func aTableKeptWholeIsOnItsHeadingsPage(height: CGFloat) {
        #expect(Self.tablesParted(height: height, keptWhole: true) == [])
    }

    @Test("Without being kept whole, some heights part a table from its heading or its rows")
    func withoutItTablesArePartedSomewhere() {
        #expect(PaginationTests.heights.contains { !Self.tablesParted(height: $0, keptWhole: false).isEmpty })
    }

    @Test(arguments: PaginationTests.heights)
    func noPageEndsWithAHeading(height: CGFloat) {
        for page in Self.layout(height: height, keptWhole: true).pages.dropLast() {
            #expect(PaginationTests.texts(page.body).last?.1 != .heading, "\(PaginationTests.texts(page.body).suffix(3).map(\.0))")
        }
    }
}
