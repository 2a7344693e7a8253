import Foundation
import Testing
import TunnelVisionModel
import TunnelVisionStore

/// `tvctl flows --follow` off a terminal: each flow appended once as it is written, and the
/// view ends when the session does.
struct FlowsFollowTests {
    @Test(arguments: [false, true])
    func appendsEachNewFlowOnceAndStopsWhenTheSessionEnds(json: Bool) throws {
        let history = try MarkTests.recording()
        let follow = try TVCtlBinary.start(["flows", "--follow"] + (json ? ["--json"] : []), database: history.path)
        if !json {
            #expect(follow.waitForOutput(containing: "Session 3, Acme Health 2.5.0 (320): 0 flows, recording since"))
        } else {
            Thread.sleep(forTimeInterval: 0.5)
        }
        var writer = try TrafficWriter(store: try history.open(), at: Date())
        var rows: [Int64] = []
        for (index, host) in ["api.acme.example", "cdn.acme.example", "new.partner.example"].enumerated() {
            rows.append(try writer.tlsFlow(to: host, version: .tls13, at: Date(), port: UInt16(50_000 + index)))
        }
        #expect(follow.waitForOutput(containing: "new.partner.example"), "the third flow appeared: \(follow.outputSoFar)")
        // Seen twice by the view's polling, still printed once.
        Thread.sleep(forTimeInterval: 1.5)
        let end = try TVCtlBinary.run(["session", "end"], database: history.path)
        #expect(end.status == 0)
        let run = follow.finish()
        #expect(run.status == 0, "\(run)")

        let lines = run.output.split(separator: "\n").map(String.init)
        if json {
            let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            #expect(objects.compactMap { $0["id"] as? Int }.map(Int64.init) == rows)
            #expect(lines.last?.hasPrefix("Session 3 ended at ") == true)
        } else {
            for (row, host) in zip(rows, ["api.acme.example", "cdn.acme.example", "new.partner.example"]) {
                #expect(lines.filter { $0.hasPrefix("\(row)  ") && $0.contains(host) }.count == 1, "flow \(row) once")
            }
            #expect(lines.last?.hasPrefix("Session 3 ended at ") == true)
            #expect(!run.output.contains("\u{1B}["), "no redrawing off a terminal")
        }
    }

    @Test func followingAnEndedSessionShowsItAndReturns() throws {
        let history = try ScratchHistory.seeded()
        let run = try TVCtlBinary.run(["flows", "1", "--follow"], database: history.path)
        #expect(run.status == 0)
        #expect(run.output.split(separator: "\n").count == 1 + 4 + 1)
        #expect(run.output.hasSuffix("Session 1 ended at 09:15:00.\n"))
    }

    /// The first read streams the flows and keeps only the newest `--limit` for a redraw: off a
    /// terminal every flow is still appended, once, oldest first, as the list gives them.
    @Test func theFirstReadAppendsEveryFlowWhateverTheLimit() throws {
        let history = try ScratchHistory.seeded()
        let listed = try TVCtlBinary.run(["flows", "1"], database: history.path)
        let run = try TVCtlBinary.run(["flows", "1", "--follow", "--limit", "1"], database: history.path)
        #expect(run.status == 0)
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 1 + 4 + 1, "\(run.output)")
        let flowLines = Array(lines.dropFirst().dropLast())
        func ids(_ lines: [String]) -> [String] { lines.map { String($0.split(separator: " ").first ?? "") } }
        #expect(ids(flowLines) == ["5", "6", "7", "8"])
        #expect(ids(flowLines) == ids(listed.output.split(separator: "\n").dropFirst(2).map(String.init)), "\(listed.output)")
    }
}
