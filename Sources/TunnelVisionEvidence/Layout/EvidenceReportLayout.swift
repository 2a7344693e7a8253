import Foundation

/// Where everything of a report goes — everything a page break can spoil — decided before
/// anything is drawn, with whoever measures text passed in. The drawer only puts each mark
/// where it says.
public struct EvidenceReportLayout: Sendable, Hashable {
    public let geometry: EvidenceReportPageGeometry
    public let bodyFrame: CGRect
    public let pages: [EvidenceReportPage]

    public init(
        title: String, subtitle: String, sections: [EvidenceReportSection],
        geometry: EvidenceReportPageGeometry, measuring measurer: some EvidenceReportTextMeasuring
    ) {
        self.geometry = geometry
        let frame = geometry.bodyFrame
        bodyFrame = frame
        var composer = EvidenceReportComposer(sections: sections, frame: frame, measurer: measurer)
        var slices = composer.titleSlices(title: title, subtitle: subtitle)
        for section in sections { slices += composer.sectionSlices(section) }
        let bodies = EvidenceReportPaginator(pageHeight: frame.height, slices: slices).pages()
        pages = bodies.enumerated().map { index, body in
            EvidenceReportPage(
                number: index + 1,
                body: body.map { $0.shifted(by: frame.minY) },
                footer: Self.footer(
                    title: title, page: index + 1, of: bodies.count, geometry: geometry, measurer: measurer))
        }
    }

    /// A rule, the report's title on the left and the page number on the right.
    private static func footer(
        title: String, page: Int, of count: Int, geometry: EvidenceReportPageGeometry,
        measurer: some EvidenceReportTextMeasuring
    ) -> [EvidenceReportMark] {
        let frame = geometry.footerFrame
        let lineHeight = measurer.lineHeight(of: .footer)
        let y = frame.maxY - lineHeight
        let number = EvidenceWording.Report.pageNumber(page, of: count)
        let numberWidth = measurer.width(of: number, style: .footer)
        let titleRoom = max(frame.width - numberWidth - EvidenceReportSpacing.columnGap * 2, 1)
        let titleLine = measurer.lines(of: title, style: .footer, width: titleRoom).first ?? ""
        return [
            .fill(CGRect(x: frame.minX, y: y - 4, width: frame.width, height: EvidenceReportSpacing.ruleThickness / 2), .rule),
            .text(titleLine, style: .footer, origin: CGPoint(x: frame.minX, y: y)),
            .text(number, style: .footer, origin: CGPoint(x: frame.maxX - numberWidth, y: y)),
        ]
    }
}
