import Foundation

/// The paper and what is kept off it. Coordinates run from the top left corner, down.
public struct EvidenceReportPageGeometry: Sendable, Hashable {
    public let size: CGSize
    public let margin: CGFloat
    /// Reserved at the bottom of the body for the footer line.
    public let footerHeight: CGFloat

    public init(size: CGSize, margin: CGFloat, footerHeight: CGFloat) {
        self.size = size
        self.margin = margin
        self.footerHeight = footerHeight
    }

    /// ISO A4 in PostScript points, with 18 mm margins.
    public static let a4 = EvidenceReportPageGeometry(
        size: CGSize(width: 595.2756, height: 841.8898), margin: 51.0236, footerHeight: 24)

    /// Inside the margins, above the footer.
    public var bodyFrame: CGRect {
        CGRect(
            x: margin, y: margin,
            width: max(size.width - 2 * margin, 0),
            height: max(size.height - 2 * margin - footerHeight, 0))
    }

    /// The footer's band, under the body and inside the margins.
    public var footerFrame: CGRect {
        CGRect(x: margin, y: size.height - margin - footerHeight, width: bodyFrame.width, height: footerHeight)
    }
}

public enum EvidenceReportFill: String, Sendable, Hashable {
    /// A thin line under a title or between table rows.
    case rule
    /// The bar beside a quoted note.
    case quoteBar
    /// The band behind a table's header row.
    case headerBand
}

/// One thing to draw, already placed: nothing is decided when drawing.
public enum EvidenceReportMark: Sendable, Hashable {
    /// One line, already broken; the origin is the top left corner of its line box.
    case text(String, style: EvidenceReportTextStyle, origin: CGPoint)
    case fill(CGRect, EvidenceReportFill)

    func shifted(by dy: CGFloat) -> EvidenceReportMark {
        switch self {
        case .text(let text, let style, let origin):
            .text(text, style: style, origin: CGPoint(x: origin.x, y: origin.y + dy))
        case .fill(let rect, let fill):
            .fill(rect.offsetBy(dx: 0, dy: dy), fill)
        }
    }
}

public struct EvidenceReportPage: Sendable, Hashable {
    /// Counted from 1.
    public let number: Int
    public let body: [EvidenceReportMark]
    public let footer: [EvidenceReportMark]
}
