import Foundation
import Testing
import TunnelVisionEvidence
@testable import TunnelVisionExport

struct EvidenceReportPDFTests {
    static let sections = [
        EvidenceReportSection(kind: .session, title: "Session", blocks: [
            .facts([EvidenceReportFact("Project", "Acme Health"), EvidenceReportFact("Release", "2.4.1 (310)")]),
            .note("Traffic is attributed to the session by the instant the flow was first written."),
            .table(EvidenceReportTable(columns: ["Pattern", "Note"], rows: [["*.acme.example", "backend"], ["ÄÖÜ-straße.example", "Umlaut"]])),
        ]),
        EvidenceReportSection(kind: .requirements, title: "Requirements", blocks: [
            .paragraph((0..<400).map { "O.Ntwk_\($0 % 9)" }.joined(separator: " ")),
        ]),
    ]

    static func render() throws -> (EvidenceReportLayout, Data) {
        let measurer = CairoTextMeasurer(typography: .standard)
        let layout = EvidenceReportLayout(
            title: "Evidence report", subtitle: "Acme Health · 2.4.1 (310) · session 7", sections: sections,
            geometry: .a4, measuring: measurer)
        let data = try EvidenceReportPDF.data(
            of: layout, typography: .standard, title: "Evidence report", creator: "tvctl test",
            createdAt: Date(timeIntervalSince1970: 1_790_000_000))
        return (layout, data)
    }

    @Test func theTextCanBeSearchedAndTheFontsAreEmbedded() throws {
        let scratch = try ScratchDirectory()
        let (layout, data) = try Self.render()
        let file = scratch.url.appendingPathComponent("report.pdf")
        try data.write(to: file)

        let text = try ForeignTool.run("pdftotext", ["-layout", file.path, "-"])
        #expect(text.contains("Acme Health"))
        #expect(text.contains("ÄÖÜ-straße.example"))
        #expect(text.contains("O.Ntwk_8"))
        #expect(text.contains("Page 1 of \(layout.pages.count)"))

        let fonts = try ForeignTool.run("pdffonts", [file.path]).split(separator: "\n").dropFirst(2)
        #expect(!fonts.isEmpty)
        for font in fonts {
            let columns = font.split(separator: " ", omittingEmptySubsequences: true)
            #expect(font.contains("DejaVuSans"), "\(font)")
            #expect(columns.count > 4 && columns[columns.count - 5] == "yes", "not embedded: \(font)")
        }

        let info = try ForeignTool.run("pdfinfo", [file.path])
            .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        #expect(info.contains("Page size: 595.276 x 841.89 pts (A4)"))
        #expect(info.contains("Pages: \(layout.pages.count)\n"))
        #expect(layout.pages.count >= 2)
    }

    @Test func theSameLayoutDrawsTheSameBytes() throws {
        #expect(try Self.render().1 == Self.render().1)
    }

    @Test(arguments: [EvidenceReportTextStyle.body, .note, .tableCell, .factLabel])
    func brokenLinesFitTheWidthInTheRealFont(style: EvidenceReportTextStyle) {
        let measurer = CairoTextMeasurer(typography: .standard)
        let text = (0..<60).map { "word\($0)" }.joined(separator: " ") + " " + String(repeating: "W", count: 90)
        let lines = measurer.lines(of: text, style: style, width: 150)
        #expect(lines.count > 3)
        for line in lines { #expect(measurer.width(of: line, style: style) <= 150) }
        #expect(lines.joined().replacingOccurrences(of: " ", with: "") == text.replacingOccurrences(of: " ", with: ""))
    }
}
