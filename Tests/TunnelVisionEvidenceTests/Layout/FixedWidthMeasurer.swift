import Foundation
import TunnelVisionEvidence

/// Every character five points wide: pagination can be asserted without a font.
struct FixedWidthMeasurer: EvidenceReportTextMeasuring {
    func lineHeight(of style: EvidenceReportTextStyle) -> CGFloat {
        switch style {
        case .title: 20
        case .sectionTitle: 16
        case .heading: 13
        case .footer: 8
        default: 10
        }
    }

    func width(of text: String, style: EvidenceReportTextStyle) -> CGFloat {
        CGFloat(text.count) * 5
    }
}

extension EvidenceReportMark {
    var text: String? {
        if case .text(let text, _, _) = self { return text }
        return nil
    }

    var style: EvidenceReportTextStyle? {
        if case .text(_, let style, _) = self { return style }
        return nil
    }

    var frame: CGRect {
        switch self {
        case .text(let text, let style, let origin):
            let measurer = FixedWidthMeasurer()
            return CGRect(
                origin: origin,
                size: CGSize(width: measurer.width(of: text, style: style), height: measurer.lineHeight(of: style)))
        case .fill(let rect, _):
            return rect
        }
    }
}
