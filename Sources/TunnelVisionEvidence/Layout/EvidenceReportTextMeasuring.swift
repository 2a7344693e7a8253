import Foundation

/// The kinds of text a page holds; which font each one is set in is the typography's business.
public enum EvidenceReportTextStyle: String, Sendable, Hashable, CaseIterable {
    case title, subtitle, sectionTitle, heading, body, note, factLabel, factValue
    case tableHeader, tableCell, footer
}

/// Whoever can say how wide a text is and how tall its lines are. The layout takes one as a
/// parameter so that pagination can be tested without a font.
public protocol EvidenceReportTextMeasuring {
    func lineHeight(of style: EvidenceReportTextStyle) -> CGFloat
    func width(of text: String, style: EvidenceReportTextStyle) -> CGFloat
    func lines(of text: String, style: EvidenceReportTextStyle, width: CGFloat) -> [String]
}

extension EvidenceReportTextMeasuring {
    /// Greedy breaking at spaces; a word wider than the line is cut between characters.
    /// An explicit line feed always ends a line. Never returns an empty array.
    public func lines(of text: String, style: EvidenceReportTextStyle, width: CGFloat) -> [String] {
        var result: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            result += breakParagraph(String(paragraph), style: style, width: width)
        }
        return result.isEmpty ? [""] : result
    }

    private func breakParagraph(_ paragraph: String, style: EvidenceReportTextStyle, width: CGFloat) -> [String] {
        let words = paragraph.split(separator: " ").map(String.init)
        guard !words.isEmpty else { return [""] }
        let spaceWidth = self.width(of: " ", style: style)
        var lines: [String] = []
        var current = ""
        var currentWidth: CGFloat = 0
        for word in words {
            let wordWidth = self.width(of: word, style: style)
            if current.isEmpty {
                (current, currentWidth) = (word, wordWidth)
            } else if currentWidth + spaceWidth + wordWidth <= width {
                current += " " + word
                currentWidth += spaceWidth + wordWidth
                continue
            } else {
                lines.append(current)
                (current, currentWidth) = (word, wordWidth)
            }
            // A word wider than the line is cut into lines from its front; only the pieces are
            // measured, never the rest of the word again, so the cost grows with the word's
            // length, not with its square (a 128 KB note once took 19 s and 800 MB).
            guard currentWidth > width, current.count > 1 else { continue }
            var rest = Substring(current)
            while true {
                let piece = longestFittingPrefix(of: rest, width: width, style: style)
                if piece.end == rest.endIndex {
                    (current, currentWidth) = (String(rest), piece.width)
                    break
                }
                lines.append(String(rest[..<piece.end]))
                rest = rest[piece.end...]
            }
        }
        lines.append(current)
        return lines
    }

    /// Where the longest prefix that fits ends (at least one character) and its width: the
    /// prefixes measured are never longer than a line and one character.
    private func longestFittingPrefix(of text: Substring, width: CGFloat, style: EvidenceReportTextStyle)
        -> (end: String.Index, width: CGFloat) {
        var end = text.index(after: text.startIndex)
        var fitting = (end: end, width: self.width(of: String(text[..<end]), style: style))
        while end < text.endIndex {
            end = text.index(after: end)
            let measured = self.width(of: String(text[..<end]), style: style)
            guard measured <= width else { break }
            fitting = (end, measured)
        }
        return fitting
    }
}
