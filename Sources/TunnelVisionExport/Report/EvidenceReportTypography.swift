import CCairo
import Foundation
import TunnelVisionEvidence

/// The fonts a report is set in: DejaVu Sans throughout, which fonts-dejavu-core installs and
/// cairo embeds in the PDF, so that the file reads the same wherever it is opened.
public struct EvidenceReportTypography: Sendable, Hashable {
    public struct Font: Sendable, Hashable {
        public let family: String
        public let bold: Bool
        public let italic: Bool
        public let size: CGFloat
        /// The height of a line, as a multiple of the size.
        public let leading: CGFloat

        public init(family: String = "DejaVu Sans", bold: Bool = false, italic: Bool = false, size: CGFloat, leading: CGFloat = 1.35) {
            self.family = family
            self.bold = bold
            self.italic = italic
            self.size = size
            self.leading = leading
        }

        public var lineHeight: CGFloat { (size * leading).rounded(.up) }
    }

    public let fonts: [EvidenceReportTextStyle: Font]

    public init(fonts: [EvidenceReportTextStyle: Font]) {
        self.fonts = fonts
    }

    public func font(for style: EvidenceReportTextStyle) -> Font {
        fonts[style] ?? Font(size: 9)
    }

    public static let standard = EvidenceReportTypography(fonts: [
        .title: Font(bold: true, size: 17, leading: 1.3),
        .subtitle: Font(size: 10.5),
        .sectionTitle: Font(bold: true, size: 13, leading: 1.3),
        .heading: Font(bold: true, size: 10),
        .body: Font(size: 9),
        .note: Font(italic: true, size: 8.5),
        .factLabel: Font(bold: true, size: 8.5),
        .factValue: Font(size: 8.5),
        .tableHeader: Font(bold: true, size: 7.5),
        .tableCell: Font(size: 7.5),
        .footer: Font(size: 7),
    ])
}

extension EvidenceReportTypography.Font {
    /// Makes this the current font of a cairo context.
    func select(in context: OpaquePointer) {
        cairo_select_font_face(
            context, family,
            italic ? CAIRO_FONT_SLANT_OBLIQUE : CAIRO_FONT_SLANT_NORMAL,
            bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(context, Double(size))
    }
}
