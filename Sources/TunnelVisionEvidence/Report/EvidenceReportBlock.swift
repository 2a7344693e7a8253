/// The eight sections of a report, in the order they are always written.
public enum EvidenceReportSectionKind: String, Sendable, Hashable, CaseIterable {
    case session, method, catalogue, requirements, findings, checks, tlsReadings, capture
}

/// What a report says, before anything is measured or placed.
public enum EvidenceReportBlock: Sendable, Hashable {
    case heading(String)
    /// The report's own text.
    case paragraph(String)
    /// Quoted from another document of the bundle.
    case note(String)
    case facts([EvidenceReportFact])
    case table(EvidenceReportTable)
}

public struct EvidenceReportFact: Sendable, Hashable {
    public let label: String
    public let value: String
    /// No page break between this fact and the next.
    public let staysWithNext: Bool

    public init(_ label: String, _ value: String, staysWithNext: Bool = false) {
        self.label = label
        self.value = value
        self.staysWithNext = staysWithNext
    }
}

public struct EvidenceReportTable: Sendable, Hashable {
    public let columns: [String]
    /// Each row has as many cells as there are columns; a short row is padded, a long one cut.
    public let rows: [[String]]
    /// Kept on one page with the heading before it, unless together they are taller than a page.
    public let keptWhole: Bool

    public init(columns: [String], rows: [[String]], keptWhole: Bool = false) {
        self.columns = columns
        self.keptWhole = keptWhole
        self.rows = rows.map { row in
            (0..<columns.count).map { $0 < row.count ? row[$0] : "" }
        }
    }
}

public struct EvidenceReportSection: Sendable, Hashable {
    public let kind: EvidenceReportSectionKind
    public let title: String
    public let blocks: [EvidenceReportBlock]

    public init(kind: EvidenceReportSectionKind, title: String, blocks: [EvidenceReportBlock]) {
        self.kind = kind
        self.title = title
        self.blocks = blocks
    }
}
