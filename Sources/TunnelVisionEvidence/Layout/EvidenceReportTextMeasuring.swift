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
            while currentWidth > width, current.count > 1 {
                let (head, tail) = cut(current, toFit: width, style: style)
                lines.append(head)
                current = tail
                currentWidth = self.width(of: tail, style: style)
            }
        }
        lines.append(current)
        return lines
    }

    /// The longest prefix that fits (at least one character), and the rest.
    private func cut(_ word: String, toFit width: CGFloat, style: EvidenceReportTextStyle) -> (String, String) {
        var fitting = word.startIndex
        var index = word.index(after: word.startIndex)
        while index <= word.endIndex, self.width(of: String(word[..<index]), style: style) <= width {
            fitting = index
            if index == word.endIndex { break }
            index = word.index(after: index)
        }
        if fitting == word.startIndex { fitting = word.index(after: word.startIndex) }
        return (String(word[..<fitting]), String(word[fitting...]))
    }
}
