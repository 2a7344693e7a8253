import Foundation

/// The smallest piece of a page: one line of text (or one line of a table row) with what is
/// drawn beside it. Whether a page may end after it is the one decision pagination makes.
struct EvidenceReportSlice: Sendable, Hashable {
    var height: CGFloat
    /// Dropped at the top of a page.
    var spaceBefore: CGFloat = 0
    /// No page break between this slice and the next.
    var keepsWithNext = false
    /// Placed relative to the slice's own top edge.
    var marks: [EvidenceReportMark]
    /// The table this slice is a row of: its header is repeated when the slice opens a page.
    var rowOfTable: Int? = nil
    /// The table this slice is the header of.
    var headerOfTable: Int? = nil
}

/// The spacing the composer leaves; one place, so that every list and table looks alike.
enum EvidenceReportSpacing {
    static let afterTitle: CGFloat = 10
    static let beforeSectionTitle: CGFloat = 20
    static let beforeHeading: CGFloat = 12
    static let beforeBlock: CGFloat = 6
    static let betweenFacts: CGFloat = 3
    static let ruleThickness: CGFloat = 0.6
    static let quoteBarWidth: CGFloat = 2.5
    static let quoteIndent: CGFloat = 10
    static let columnGap: CGFloat = 8
    static let cellPadding: CGFloat = 4
    static let rowPadding: CGFloat = 2.5
    /// The label column of every fact list takes at most this share of the body's width.
    static let labelShare: CGFloat = 0.34
}
