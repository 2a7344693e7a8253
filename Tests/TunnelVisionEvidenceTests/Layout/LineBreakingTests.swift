import Foundation
import Testing
import TunnelVisionEvidence

struct LineBreakingTests {
    @Test(arguments: [
        ("aaa bbb ccc", 35.0, ["aaa bbb", "ccc"]),
        ("aaa bbb ccc", 55.0, ["aaa bbb ccc"]),
        ("abcdefghij", 20.0, ["abcd", "efgh", "ij"]),
        ("x abcdefghij", 20.0, ["x", "abcd", "efgh", "ij"]),
        ("", 50.0, [""]),
        ("a\nb", 50.0, ["a", "b"]),
        ("a\n\nb", 50.0, ["a", "", "b"]),
        ("ab", 1.0, ["a", "b"]),
        ("  spaced   out  ", 100.0, ["spaced out"]),
    ] as [(String, Double, [String])])
    func breaksAtSpacesAndCutsLongWords(text: String, width: Double, expected: [String]) {
        #expect(FixedWidthMeasurer().lines(of: text, style: .body, width: CGFloat(width)) == expected)
    }
}

struct ColumnWidthsTests {
    @Test(arguments: [
        ([10, 20], 100, [10, 20]),
        ([10, 200, 300], 210, [10, 80, 120]),
        ([100, 100], 100, [50, 50]),
        ([10, 20, 30, 400], 100, [10, 20, 30, 40]),
        ([10], 0, [0]),
        ([], 100, []),
        ([-5, 10], 100, [0, 10]),
    ] as [([Double], Double, [Double])])
    func sharesKeepNarrowColumnsWhole(natural: [Double], available: Double, expected: [Double]) {
        let shares = EvidenceReportColumnWidths.shares(natural: natural.map { CGFloat($0) }, into: CGFloat(available))
        #expect(shares.map { Double($0) } == expected)
    }

    @Test(arguments: [
        ([10, 30], 100, [25, 75]),
        ([10, 200, 300], 210, [10, 80, 120]),
        ([0, 0], 100, [50, 50]),
        ([], 100, []),
    ] as [([Double], Double, [Double])])
    func fillingSpansTheWholeWidth(natural: [Double], available: Double, expected: [Double]) {
        let filled = EvidenceReportColumnWidths.filling(natural: natural.map { CGFloat($0) }, into: CGFloat(available))
        #expect(filled.map { Double($0) } == expected)
    }
}

/// The cost of breaking a text grows with its length, not its square. Counted
/// in characters measured (what a font measurer spends its time on), not timed.
struct LineBreakingCostTests {
    final class Counter: @unchecked Sendable { var characters = 0 }

    struct CountingMeasurer: EvidenceReportTextMeasuring {
        let counter: Counter
        func lineHeight(of style: EvidenceReportTextStyle) -> CGFloat { 10 }
        func width(of text: String, style: EvidenceReportTextStyle) -> CGFloat {
            counter.characters += text.count
            return CGFloat(text.count) * 5
        }
    }

    static func cost(_ text: String) -> (characters: Int, lines: Int) {
        let counter = Counter()
        let lines = CountingMeasurer(counter: counter).lines(of: text, style: .note, width: 400)
        return (counter.characters, lines.count)
    }

    @Test(arguments: ["x", "word "])
    func fourTimesTheTextCostsAboutFourTimesAsMuch(unit: String) {
        let small = Self.cost(String(repeating: unit, count: 32_768 / unit.count))
        let large = Self.cost(String(repeating: unit, count: 131_072 / unit.count))
        #expect(large.lines >= 4 * small.lines - 1)
        // Linear: 4x (a little more for the last line); quadratic was 16x and more.
        #expect(large.characters <= 5 * small.characters, "\(small.characters) then \(large.characters) characters measured")
    }
}
