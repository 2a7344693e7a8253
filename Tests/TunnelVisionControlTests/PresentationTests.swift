import Foundation
import Testing
@testable import TunnelVisionControl

/// How values are written for people and scripts, and how tables line up.
struct PresentationTests {
    static let utc = TimeZone(identifier: "UTC")!
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    @Test(arguments: [
        (1_790_845_387.999, utc, "09:03:07"),
        (1_790_845_387.0, utc, "09:03:07"),
        (1_790_845_387.5, berlin, "11:03:07"),
        (0.0, utc, "00:00:00"),
    ])
    func timeIsTheSecondTheInstantFallsIn(_ seconds: Double, _ zone: TimeZone, _ expected: String) {
        #expect(Formatting.time(Date(timeIntervalSince1970: seconds), in: zone) == expected)
    }

    @Test(arguments: [
        (1_790_845_387.25, "2026-10-01T09:03:07.250000000Z"),
        (1_790_845_387.0, "2026-10-01T09:03:07.000000000Z"),
        // Nine digits of what the Double holds: never rounded up into the next millisecond or second.
        (1_790_845_387.9996, "2026-10-01T09:03:07.999599934Z"),
        (1_790_845_387.99999999, "2026-10-01T09:03:08.000000000Z"),
        (951_782_400.5, "2000-02-29T00:00:00.500000000Z"),
        (-0.5, "1969-12-31T23:59:59.500000000Z"),
    ])
    func jsonInstantsAreUTCWithNanoseconds(_ seconds: Double, _ expected: String) {
        #expect(Formatting.iso8601(Date(timeIntervalSince1970: seconds)) == expected)
    }

    @Test(arguments: [
        ("2026-10-01T09:00:00Z", 1_790_845_200.0),
        ("2026-10-01T11:00:00+02:00", 1_790_845_200.0),
        ("2026-10-01T09:00:00.5Z", 1_790_845_200.5),
    ])
    func instantsAreReadInISO8601(_ text: String, _ seconds: Double) {
        #expect(Formatting.instant(from: text) == Date(timeIntervalSince1970: seconds))
    }

    @Test(arguments: ["yesterday", "2026-10-01", "2026-10-01 09:00:00", ""])
    func otherInstantsAreNot(_ text: String) {
        #expect(Formatting.instant(from: text) == nil)
    }

    @Test(arguments: [
        (UInt64(0), "0 B"), (999, "999 B"), (1_000, "1.0 kB"), (18_322, "18.3 kB"), (229_000_000, "229.0 MB"),
        (UInt64.max, "18446744.1 TB"),
    ])
    func sizesAreDecimal(_ count: UInt64, _ expected: String) {
        #expect(Formatting.bytes(count) == expected)
    }

    @Test(arguments: [(0, "0"), (999, "999"), (1_000, "1,000"), (1_234_567, "1,234,567"), (-4_200, "-4,200")])
    func countsAreGroupedInThousands(_ value: Int, _ expected: String) {
        #expect(Formatting.count(value) == expected)
    }

    @Test(arguments: [(0.4, "0 s"), (59.9, "59 s"), (60, "1 min 00 s"), (3_599, "59 min 59 s"), (7_500, "2 h 05 min"), (-3, "0 s")])
    func durationsAreWholeUnits(_ seconds: TimeInterval, _ expected: String) {
        #expect(Formatting.duration(seconds) == expected)
    }

    @Test func tablesAlignOnTheWidestCellAndStyleOnlyTheHeader() {
        var table = TextTable([.init("ID", .right), .init("NAME"), .init("FLOWS", .right)])
        table.append(["7", "api.acme.example", "12"])
        table.append(["12", "—", "1,234"])
        #expect(table.rendered() == """
            ID  NAME              FLOWS
             7  api.acme.example     12
            12  —                 1,234

            """)
        let styled = table.lines(style: TextStyle(colours: true))
        #expect(styled[0] == "\u{1B}[1mID  NAME              FLOWS\u{1B}[0m")
        #expect(styled[1] == " 7  api.acme.example     12")
    }

    @Test(arguments: [
        ([String: String](), true, true),
        (["NO_COLOR": "1"], true, false),
        (["NO_COLOR": ""], true, true),
        (["TERM": "dumb"], true, false),
        ([String: String](), false, false),
    ])
    func colourOnlyOnATerminalAndNeverWithNoColor(_ environment: [String: String], _ terminal: Bool, _ colours: Bool) {
        let console = Console(writeOutput: { _ in }, writeError: { _ in }, readLine: { nil }, outputIsTerminal: terminal, inputIsTerminal: false)
        #expect(Invocation(console: console, environment: environment, startedAt: Date()).style.colours == colours)
    }

    @Test(arguments: [
        ("/tmp/x.sqlite", [String: String](), "/tmp/x.sqlite"),
        (nil, ["TUNNELVISION_DB": "/srv/h.sqlite"], "/srv/h.sqlite"),
        ("/tmp/x.sqlite", ["TUNNELVISION_DB": "/srv/h.sqlite"], "/tmp/x.sqlite"),
        (nil, ["TUNNELVISION_DB": ""], "/var/lib/tunnelvision/history.sqlite"),
        (nil, [String: String](), "/var/lib/tunnelvision/history.sqlite"),
    ] as [(String?, [String: String], String)])
    func theDatabaseIsTheOptionsThenTheEnvironmentsThenTheDaemons(_ option: String?, _ environment: [String: String], _ path: String) {
        #expect(DatabaseLocation(option: option, environment: environment).path == path)
    }

    @Test(arguments: [
        ("one two three", 7, ["one two", "three"]),
        ("one two three", 100, ["one two three"]),
        ("a verylongword b", 4, ["a", "verylongword", "b"]),
        ("", 10, []),
    ] as [(String, Int, [String])])
    func helpTextIsBrokenBetweenWords(_ text: String, _ width: Int, _ lines: [String]) {
        #expect(HelpText.wrapped(text, width: width) == lines)
    }

    @Test(arguments: [("Acme Health", "'Acme Health'"), ("acme", "acme"), ("it's", "'it'\\''s'"), ("", "''")])
    func namesAreQuotedAsAShellNeedsThem(_ name: String, _ word: String) {
        #expect(Wording.shellWord(name) == word)
    }
}
