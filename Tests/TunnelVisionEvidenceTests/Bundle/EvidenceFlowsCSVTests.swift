import Foundation
import Testing
@testable import TunnelVisionEvidence

struct EvidenceFlowsCSVTests {
    @Test(arguments: [
        ("plain", "plain"),
        ("=1+2", "'=1+2"),
        ("+49 30", "'+49 30"),
        ("-5", "'-5"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "\"'\rx\""),
        ("a,b", "\"a,b\""),
        ("say \"hi\"", "\"say \"\"hi\"\"\""),
        ("two\r\nlines", "\"two\r\nlines\""),
        ("=a,\"b\"", "\"'=a,\"\"b\"\"\""),
        ("", ""),
    ])
    func cellsAreQuotedAndDefusedAsRFC4180AndSpreadsheetsNeed(cell: String, written: String) {
        #expect(EvidenceCSVCell.escape(cell) == written)
    }

    @Test func oneRowPerFlowInTheOrderOfFlowsJSON() throws {
        let bundle = try EvidenceFixture.bundle()
        let data = try #require(bundle.documentFiles().first { $0.name == "flows.csv" }).data
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.hasSuffix("\r\n"))
        let lines = text.components(separatedBy: "\r\n").dropLast()
        #expect(lines.count == bundle.flows.flows.count + 1)
        #expect(lines.first == EvidenceFlowsCSV.headers.joined(separator: ","))
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.map { $0.first.map(String.init) } == bundle.flows.flows.map { String($0.id) })
        #expect(text.contains("'=cmd|' /C calc'!A0.tracker.example"))
        #expect(text.contains(",TLS1.0,0x002F,"))
        #expect(text.contains("0x7F1C TLS1.3"))
        #expect(text.contains("\"CN=Acme CA, O=\"\"Acme, Inc.\"\"\""))
    }
}
