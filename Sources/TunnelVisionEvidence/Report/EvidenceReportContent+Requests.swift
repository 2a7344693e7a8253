import Foundation

/// The report's blocks about requests read inside inspected connections: what findings.json
/// says of them, nothing more.
extension EvidenceReportContent {
    /// Every request a consent finding rests on, in the order they were sent, under a heading that
    /// stays on the page with the whole table; nothing when no flow was judged on requests.
    func requestsBeforeConsentBlocks() -> [EvidenceReportBlock] {
        let requests = bundle.findings.findings.compactMap(\.requestsBeforeConsent).flatMap(\.requests)
            .sorted { ($0.sentAt, $0.flow) < ($1.sentAt, $1.flow) }
        guard !requests.isEmpty else { return [] }
        let shown = requests.prefix(limits.tlsReadingRows)
        var blocks: [EvidenceReportBlock] = [
            .heading(Words.requestsBeforeConsentHeading),
            .table(EvidenceReportTable(
                columns: [Column.sentAt, Column.host, Column.method, Column.bodyBytes, Column.flow],
                rows: shown.map { request in
                    [
                        Words.instant(request.sentAt), request.authority ?? Words.noRequestHost, request.method,
                        String(request.bodyBytes), String(request.flow),
                    ]
                },
                keptWhole: true)),
        ]
        if requests.count > shown.count {
            blocks.append(.paragraph(Words.requestRowsOmitted(requests.count - shown.count)))
        }
        return blocks + [.paragraph(Words.requestsBeforeConsentScope)]
    }

    static func consentBasisFacts(_ basis: EvidenceFindingsDocument.ConsentJudgedOn) -> [EvidenceReportFact] {
        [
            EvidenceReportFact(Words.judgedOnRequests, String(basis.requestsRead.count), staysWithNext: true),
            EvidenceReportFact(Words.judgedOnConnectionStart, String(basis.connectionStart.count)),
        ]
    }
}
