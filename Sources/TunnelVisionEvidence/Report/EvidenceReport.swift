import Foundation
import TunnelVisionAudit
import TunnelVisionModel

/// How long the report's lists may run: past these, a list says what it leaves out and where
/// the rest is.
public struct EvidenceReportLimits: Sendable, Hashable {
    /// Also how many finding ids a requirement lists.
    public let flowIDsPerFinding: Int
    public let tlsReadingRows: Int

    /// Nil unless both are positive.
    public init?(flowIDsPerFinding: Int, tlsReadingRows: Int) {
        guard flowIDsPerFinding > 0, tlsReadingRows > 0 else { return nil }
        self.flowIDsPerFinding = flowIDsPerFinding
        self.tlsReadingRows = tlsReadingRows
    }

    /// The report in the bundle: twelve flow ids per finding, 150 rows of TLS readings.
    public static let bundled = EvidenceReportLimits(checked: 12, 150)

    private init(checked flowIDs: Int, _ rows: Int) {
        flowIDsPerFinding = flowIDs
        tlsReadingRows = rows
    }
}

public enum EvidenceReportError: Error, Sendable, Hashable {
    case captureOfAnotherSession(captureRunID: Int64, sessionID: Int64)
}

/// What report.pdf says, before anything is drawn: which sections, which rows, which sentence
/// in each place. Pure; the layout composes it into pages.
public struct EvidenceReport: Sendable, Hashable {
    public let title: String
    /// Project · release or "baseline" · session id.
    public let subtitle: String
    /// Always all eight, in order.
    public let sections: [EvidenceReportSection]

    public init(
        bundle: EvidenceBundle, capture: EvidenceCaptureDocument, limits: EvidenceReportLimits
    ) throws(EvidenceReportError) {
        guard capture.sessionID == bundle.sessionID else {
            throw .captureOfAnotherSession(captureRunID: capture.sessionID, sessionID: bundle.sessionID)
        }
        let session = bundle.session
        title = EvidenceWording.Report.title
        subtitle = EvidenceWording.Report.subtitle(
            project: session.project.name,
            release: session.session.release.map { ($0.version, $0.build) },
            sessionID: session.session.id)
        let content = EvidenceReportContent(bundle: bundle, capture: capture, limits: limits)
        sections = EvidenceReportSectionKind.allCases.map { kind in
            EvidenceReportSection(kind: kind, title: EvidenceWording.Report.sectionTitle(kind), blocks: content.blocks(of: kind))
        }
    }
}

extension EvidenceReportLayout {
    public init(report: EvidenceReport, geometry: EvidenceReportPageGeometry, measuring: some EvidenceReportTextMeasuring) {
        self.init(title: report.title, subtitle: report.subtitle, sections: report.sections, geometry: geometry, measuring: measuring)
    }
}
