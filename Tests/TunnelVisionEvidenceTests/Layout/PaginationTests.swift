import Foundation
import Testing
import TunnelVisionEvidence

/// Pagination asserted over fifty page heights with a measurer in which every character is five
/// points wide. The sample's texts carry their own provenance — `q3w7` is word 7 of note 3,
/// `T2R5C1` is row 5, column 1 of table 2 — so each line on a page says where it came from.
struct PaginationTests {
    static let heights: [CGFloat] = (0..<50).map { 190 + CGFloat($0) * 17 }

    static func words(_ prefix: String, _ count: Int) -> String {
        (0..<count).map { "\(prefix)w\($0)" }.joined(separator: " ")
    }

    static let sections: [EvidenceReportSection] = (0..<4).map { part in
        var blocks: [EvidenceReportBlock] = []
        for item in 0..<6 {
            let id = part * 6 + item
            blocks.append(.heading("Heading \(id) " + words("h\(id)", item % 3 * 4)))
            blocks.append(.paragraph(words("p\(id)", 3 + id * 7 % 40)))
            blocks.append(.note(words("q\(id)", 2 + id * 11 % 45)))
            blocks.append(.facts((0..<(3 + id % 5)).map { fact in
                EvidenceReportFact("F\(id)L\(fact)", words("f\(id)v\(fact)", 1 + (fact * 5 + id) % 19), staysWithNext: fact % 3 == 1)
            }))
            blocks.append(.table(EvidenceReportTable(
                columns: id % 2 == 0 ? ["Host", "Count", "Flow ids"] : ["Sentence", "Identifier"],
                rows: (0..<(id * 3 % 17)).map { row in
                    (0..<(id % 2 == 0 ? 3 : 2)).map { column in
                        "T\(id)R\(row)C\(column)" + (column == 2 ? " " + words("T\(id)R\(row)x", row % 9) : "")
                    }
                })))
        }
        return EvidenceReportSection(kind: EvidenceReportSectionKind.allCases[part], title: "Section \(part)", blocks: blocks)
    }

    static func layout(height: CGFloat) -> EvidenceReportLayout {
        EvidenceReportLayout(
            title: "Sample report", subtitle: "Project · 1.0 · session 1", sections: sections,
            geometry: EvidenceReportPageGeometry(size: CGSize(width: 420, height: height), margin: 20, footerHeight: 16),
            measuring: FixedWidthMeasurer())
    }

    static let unbroken = layout(height: 1_000_000)

    static func texts(_ marks: [EvidenceReportMark]) -> [(String, EvidenceReportTextStyle)] {
        marks.compactMap { mark in mark.text.flatMap { text in mark.style.map { (text, $0) } } }
    }

    @Test func aPageTallEnoughHoldsEverything() {
        #expect(Self.unbroken.pages.count == 1)
        #expect(Self.layout(height: 400).pages.count > 20)
    }

    @Test(arguments: heights)
    func everyLineArrivesOnceInOrder(height: CGFloat) {
        let withoutHeaders = { (marks: [EvidenceReportMark]) in
            Self.texts(marks).filter { $0.1 != .tableHeader }.map(\.0)
        }
        let paged = Self.layout(height: height).pages.flatMap { withoutHeaders($0.body) }
        #expect(paged == withoutHeaders(Self.unbroken.pages[0].body))
    }

    @Test(arguments: heights)
    func everyMarkStaysInsideTheBody(height: CGFloat) {
        let layout = Self.layout(height: height)
        for page in layout.pages {
            for mark in page.body {
                let body = layout.bodyFrame, frame = mark.frame
                let inside = frame.minX >= body.minX - 0.01 && frame.maxX <= body.maxX + 0.01
                    && frame.minY >= body.minY - 0.01 && frame.maxY <= body.maxY + 0.01
                #expect(inside, "page \(page.number): \(mark)")
            }
        }
    }

    @Test(arguments: heights)
    func noPageEndsWithAHeading(height: CGFloat) {
        for page in Self.layout(height: height).pages.dropLast() {
            let last = Self.texts(page.body).last?.1
            #expect(![.title, .subtitle, .sectionTitle, .heading].contains(last), "page \(page.number) ends with \(String(describing: last))")
        }
    }

    @Test(arguments: heights)
    func aFactThatStaysWithTheNextIsOnItsPage(height: CGFloat) {
        let pageOfLabel = Self.pageOfFirstLine(height: height, style: .factLabel)
        for section in Self.sections {
            for case .facts(let facts) in section.blocks {
                for (fact, next) in zip(facts, facts.dropFirst()) where fact.staysWithNext {
                    #expect(pageOfLabel[fact.label] == pageOfLabel[next.label], "\(fact.label) and \(next.label) at height \(height)")
                }
            }
        }
    }

    @Test(arguments: heights)
    func aTableRowAlwaysHasItsTablesHeaderAboveIt(height: CGFloat) {
        let columns = Dictionary(uniqueKeysWithValues: Self.sections.flatMap(\.blocks).compactMap { block -> (String, [String])? in
            guard case .table(let table) = block, let first = table.rows.first?.first else { return nil }
            return (String(first.prefix { $0 != "R" }), table.columns)
        })
        for page in Self.layout(height: height).pages {
            var header: [String] = []
            var readingHeader = false
            for (text, style) in Self.texts(page.body) {
                if style == .tableHeader {
                    if !readingHeader { header = [] }
                    header.append(text)
                    readingHeader = true
                    continue
                }
                readingHeader = false
                guard style == .tableCell, text.hasPrefix("T"), let range = text.range(of: "R") else { continue }
                let table = String(text[..<range.lowerBound])
                #expect(header == columns[table], "page \(page.number): \(text) under \(header)")
            }
        }
    }

    @Test(arguments: heights)
    func noteAndParagraphEndsNeverStandAlone(height: CGFloat) {
        var linesPerPage: [String: [Int: Int]] = [:]
        for page in Self.layout(height: height).pages {
            for (text, style) in Self.texts(page.body) where style == .note || style == .body {
                let owner = String(text.prefix { $0 != "w" })
                linesPerPage[owner, default: [:]][page.number, default: 0] += 1
            }
        }
        for (owner, pages) in linesPerPage where pages.values.reduce(0, +) > 1 {
            #expect(pages.values.allSatisfy { $0 >= 2 }, "\(owner) at height \(height): \(pages)")
        }
        #expect(linesPerPage.count == 48)
    }

    @Test(arguments: heights)
    func everyPageIsNumberedOutOfTheTotal(height: CGFloat) {
        let pages = Self.layout(height: height).pages
        for page in pages {
            #expect(page.footer.compactMap(\.text).contains("Page \(page.number) of \(pages.count)"))
        }
    }

    @Test func tablesWithTheSameHeadingsTakeTheSameShape() {
        var shapes: [[String]: Set<[CGFloat]>] = [:]
        var header: [(String, CGFloat)] = []
        for mark in Self.unbroken.pages[0].body {
            guard case .text(let text, let style, let origin) = mark else { continue }
            if style == .tableHeader {
                header.append((text, origin.x))
            } else if !header.isEmpty {
                shapes[header.map(\.0), default: []].insert(header.map(\.1))
                header = []
            }
        }
        #expect(shapes.count == 2)
        #expect(shapes.values.allSatisfy { $0.count == 1 })
    }

    @Test func everyFactListSharesOneLabelColumn() {
        let valueColumns = Set(Self.unbroken.pages[0].body.compactMap { mark -> CGFloat? in
            guard case .text(_, .factValue, let origin) = mark else { return nil }
            return origin.x
        })
        #expect(valueColumns.count == 1)
    }

    @Test func theSameInputGivesTheSameLayout() {
        #expect(Self.layout(height: 500) == Self.layout(height: 500))
    }

    static func pageOfFirstLine(height: CGFloat, style: EvidenceReportTextStyle) -> [String: Int] {
        var result: [String: Int] = [:]
        for page in layout(height: height).pages {
            for (text, textStyle) in texts(page.body) where textStyle == style && result[text] == nil {
                result[text] = page.number
            }
        }
        return result
    }
}
