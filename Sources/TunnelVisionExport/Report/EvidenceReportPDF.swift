import CCairo
import Foundation
import TunnelVisionEvidence

/// Draws a laid-out report with cairo: every mark where the layout put it, nothing decided here.
/// Text is drawn as text, so the PDF can be searched and its words copied.
public enum EvidenceReportPDF {
    /// What cairo reported when the document could not be finished (a font it could not load,
    /// memory), in its own words.
    public struct Failure: Error, Sendable, Hashable {
        public let reason: String
    }

    public static func data(
        of layout: EvidenceReportLayout, typography: EvidenceReportTypography,
        title: String, creator: String, createdAt: Date
    ) throws(Failure) -> Data {
        let sink = Sink()
        let size = layout.geometry.size
        let surface = cairo_pdf_surface_create_for_stream(
            { closure, bytes, length in
                guard let closure, let bytes else { return CAIRO_STATUS_WRITE_ERROR }
                Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue().data.append(bytes, count: Int(length))
                return CAIRO_STATUS_SUCCESS
            },
            Unmanaged.passUnretained(sink).toOpaque(), Double(size.width), Double(size.height))
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, title)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, creator)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, pdfDate(createdAt))
        let context = cairo_create(surface)
        for page in layout.pages {
            for mark in page.body + page.footer { draw(mark, in: context, typography: typography) }
            cairo_show_page(context)
        }
        let drawing = cairo_status(context)
        cairo_destroy(context)
        cairo_surface_finish(surface)
        let finishing = cairo_surface_status(surface)
        cairo_surface_destroy(surface)
        for status in [drawing, finishing] where status != CAIRO_STATUS_SUCCESS {
            throw Failure(reason: String(cString: cairo_status_to_string(status)))
        }
        return withExtendedLifetime(sink) { sink.data }
    }

    private final class Sink {
        var data = Data()
    }

    private static func draw(_ mark: EvidenceReportMark, in context: OpaquePointer?, typography: EvidenceReportTypography) {
        guard let context else { return }
        switch mark {
        case .fill(let rect, let fill):
            let gray = shade(of: fill)
            cairo_set_source_rgb(context, gray, gray, gray)
            cairo_rectangle(context, Double(rect.minX), Double(rect.minY), Double(rect.width), Double(rect.height))
            cairo_fill(context)
        case .text(let text, let style, let origin):
            let font = typography.font(for: style)
            font.select(in: context)
            var extents = cairo_font_extents_t()
            cairo_font_extents(context, &extents)
            // The glyphs sit in the middle of the line box the layout reserved.
            let baseline = Double(origin.y) + (Double(font.lineHeight) - extents.ascent - extents.descent) / 2 + extents.ascent
            let gray = style == .footer ? 0.35 : 0.0
            cairo_set_source_rgb(context, gray, gray, gray)
            cairo_move_to(context, Double(origin.x), baseline)
            cairo_show_text(context, text)
        }
    }

    private static func shade(of fill: EvidenceReportFill) -> Double {
        switch fill {
        case .rule: 0.6
        case .quoteBar: 0.55
        case .headerBand: 0.9
        }
    }

    /// The form cairo writes into the document information: a fixed instant keeps two renderings
    /// of the same report byte for byte alike.
    private static func pdfDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss'Z'"
        return formatter.string(from: date)
    }
}
