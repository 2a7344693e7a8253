import Foundation
import Testing
import TunnelVisionEvidence

/// A requirement's heading and its facts go to a page together: a page never ends with the
/// heading and the first facts while the rest fits on one page with them.
struct HeadingWithFactsTests {
    static let sections: [EvidenceReportSection] = [EvidenceReportSection(
        kind: .requirements, title: "Requirements",
        blocks: (0..<12).flatMap { id -> [EvidenceReportBlock] in
            [.heading("Requirement \(id)"),
             .facts((0..<(4 + id % 3)).map { fact in
                 EvidenceReportFact("R\(id)F\(fact)", PaginationTests.words("r\(id)f\(fact)", 2 + (fact * 7 + id) % 23))
             })]
        })]

    static func layout(height: CGFloat) -> EvidenceReportLayout {
        EvidenceReportLayout(
            title: "Sample report", subtitle: "Project · 1.0 · session 1", sections: sections,
            geometry: EvidenceReportPageGeometry(size: CGSize(width: 420, height: height), margin: 20, footerHeight: 16),
            measuring: FixedWidthMeasurer())
    }

    @Test(arguments: PaginationTests.heights)
    func everyRequirementsFactsAreOnItsHeadingsPage(height: CGFloat) {
        let layout = Self.layout(height: height)
        var pageOf: [String: Int] = [:]
        for page in layout.pages {
            for (text, style) in PaginationTests.texts(page.body) where style == .heading || style == .factLabel {
                if pageOf[text] == nil { pageOf[text] = page.number }
            }
        }
        // What one requirement takes unbroken, against the body's height.
        let unbroken = PaginationTests.texts(Self.layout(height: 1_000_000).pages[0].body)
        for id in 0..<12 {
            let heading = "Requirement \(id)"
            let labels = unbroken.map(\.0).filter { $0.hasPrefix("R\(id)F") }
            let tall = Self.requirementHeight(id, in: Self.layout(height: 1_000_000)) > layout.bodyFrame.height
            guard !tall else { continue }
            for label in labels {
                #expect(pageOf[label] == pageOf[heading], "\(label) apart from \(heading) at height \(height)")
            }
        }
    }

    /// From the heading's top to the last fact's bottom on the one unbroken page.
    static func requirementHeight(_ id: Int, in layout: EvidenceReportLayout) -> CGFloat {
        let marks = layout.pages[0].body.filter { mark in
            guard let text = mark.text else { return false }
            return text == "Requirement \(id)" || text.hasPrefix("R\(id)F") || text.hasPrefix("r\(id)f")
        }
        guard let top = marks.map(\.frame.minY).min(), let bottom = marks.map(\.frame.maxY).max() else { return 0 }
        return bottom - top + 20
    }
}
