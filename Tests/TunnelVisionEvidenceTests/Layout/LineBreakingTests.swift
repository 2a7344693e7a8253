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
