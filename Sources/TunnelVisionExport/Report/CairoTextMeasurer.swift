import CCairo
import Foundation
import TunnelVisionEvidence

/// Measures text with the fonts the PDF is drawn in, so that what the layout breaks is what
/// the page shows. Holds a cairo context of its own; not to be shared between threads.
public final class CairoTextMeasurer: EvidenceReportTextMeasuring {
    public let typography: EvidenceReportTypography
    private let surface: OpaquePointer
    private let context: OpaquePointer
    private var widths: [EvidenceReportTextStyle: [String: CGFloat]] = [:]

    public init(typography: EvidenceReportTypography) {
        self.typography = typography
        surface = cairo_image_surface_create(CAIRO_FORMAT_A8, 1, 1)
        context = cairo_create(surface)
        // A PDF is laid out with unhinted metrics; an image surface would otherwise round every
        // advance to whole pixels and lines measured here would run past the margin there.
        let options = cairo_font_options_create()
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        cairo_set_font_options(context, options)
        cairo_font_options_destroy(options)
    }

    deinit {
        cairo_destroy(context)
        cairo_surface_destroy(surface)
    }

    public func lineHeight(of style: EvidenceReportTextStyle) -> CGFloat {
        typography.font(for: style).lineHeight
    }

    public func width(of text: String, style: EvidenceReportTextStyle) -> CGFloat {
        if let known = widths[style]?[text] { return known }
        typography.font(for: style).select(in: context)
        var extents = cairo_text_extents_t()
        cairo_text_extents(context, text, &extents)
        let width = CGFloat(extents.x_advance)
        widths[style, default: [:]][text] = width
        return width
    }
}
