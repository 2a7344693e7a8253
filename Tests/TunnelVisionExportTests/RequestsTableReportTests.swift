import EvidenceSeeding
import Foundation
import Testing
import TunnelVisionAudit
import TunnelVisionEvidence
@testable import TunnelVisionExport
import TunnelVisionModel
import TunnelVisionStore

/// The report of a recording whose connections carried requests before consent, drawn with the
/// real fonts: the table and its heading on one page. With TUNNELVISION_KEEP_PAGES set, the PDF
/// is kept there for a person to look at.
struct RequestsTableReportTests {
    @Test("The requests before consent are one table on one page with their heading")
    func theRequestTableStaysWithItsHeading() throws {
        let scratch = try ScratchDirectory()
        let seed = try EvidenceSeed.make(in: scratch.url.appendingPathComponent("seed"), plan: .init(flows: 24))
        let store = try History(path: seed.databasePath)
        let (project, session, markers, stored) = try store.reading { snapshot in
            let session = try #require(try snapshot.recording(id: seed.sessionID))
            let project = try #require(try snapshot.auditProject(id: session.projectID))
            return (project, session, try snapshot.markers(forSession: session.id), try snapshot.flows(inRecording: session.id))
        }
        // The seed's consent marker is 5 s in; its first flows begin before it.
        var flows = stored
        let methods = ["POST", "PUT", "GET"]
        for index in 0..<3 {
            let start = flows[index].firstSeen
            flows[index].requests = (0..<5).map { number in
                ReadRequest(
                    instant: start.addingTimeInterval(Double(number) * 0.05 + 0.01), version: .http2, method: methods[(index + number) % 3],
                    authority: index == 2 ? "metrics.tracker.example" : "api.acme.example", path: nil,
                    bodyBytes: Int64(1_024 * (number + 1) * (index + 1)), responseStatus: 200, stream: UInt32(2 * number + 1))
            }
        }
        let bundle = try EvidenceBundle(
            project: project, session: session, markers: markers, flows: flows,
            catalogue: try RequirementCatalogueLibraryAccess.catalogue(in: EvidenceExporterTests.catalogues),
            exportedWith: "tvctl test", exportedAt: EvidenceExporterTests.now)
        let capture = EvidenceCaptureDocument(
            sessionID: bundle.sessionID, snaplen: 262_144, packets: EvidencePacketTally(written: 240, withoutBytes: [:]),
            writtenOutsideSession: .init(beforeStart: 0, afterEnd: 0), sourceFiles: [], flows: [])
        let report = try EvidenceReport(bundle: bundle, capture: capture, limits: .bundled)
        let layout = EvidenceReportLayout(report: report, geometry: .a4, measuring: CairoTextMeasurer(typography: .standard))
        let data = try EvidenceReportPDF.data(
            of: layout, typography: .standard, title: report.title, creator: "tvctl test", createdAt: EvidenceExporterTests.now)
        let file = scratch.url.appendingPathComponent("report.pdf")
        try data.write(to: file)
        if let keep = ProcessInfo.processInfo.environment["TUNNELVISION_KEEP_PAGES"] {
            try? FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
            try? FileManager.default.removeItem(atPath: keep + "/requests-report.pdf")
            try FileManager.default.copyItem(atPath: file.path, toPath: keep + "/requests-report.pdf")
        }
        let pages = try (1...layout.pages.count).map { page in
            try ForeignTool.run("pdftotext", ["-layout", "-f", String(page), "-l", String(page), file.path, "-"])
        }
        let headingPages = pages.indices.filter { pages[$0].contains(EvidenceWording.Report.requestsBeforeConsentHeading) }
        #expect(headingPages.count == 1)
        let page = try #require(headingPages.first)
        // Every one of the fifteen rows is on the heading's page: the host of each, counted there.
        let rows = pages[page].components(separatedBy: "\n").filter {
            $0.contains(" UTC") && ($0.contains("api.acme.example") || $0.contains("metrics.tracker.example"))
        }
        #expect(rows.count == 15, "\(pages[page])")
        #expect(pages.joined().contains("5 requests with 46.1 kB of bodies to metrics.tracker.example before consent."))
    }
}
