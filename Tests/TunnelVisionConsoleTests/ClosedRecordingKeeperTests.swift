import Foundation
import Testing
import TunnelVisionConsole
import TunnelVisionControl
import TunnelVisionModel
import TunnelVisionStore

/// A closed recording's findings are assessed once and kept, until something they were made
/// from changes; what the page shows stays what `tvctl findings` says at that moment.
struct ClosedRecordingKeeperTests {
    final class Counter: @unchecked Sendable {
        var made = 0
    }

    @Test func aKeptValueIsMadeAgainWhenItsFlowsItsProjectOrItsEndChange() throws {
        let console = try ConsoleUnderTest()
        let keeper = ClosedRecordingKeeper<Int>(library: ControlLibrary(location: DatabaseLocation(path: console.database)))
        let counter = Counter()
        let make = { () throws(ControlError) -> Int in counter.made += 1; return counter.made }
        #expect(try keeper.value(forSession: 2, make: make) == 1)
        #expect(try keeper.value(forSession: 2, make: make) == 1, "kept")

        // The project's allowlist changes what the flows prove.
        #expect(console.runner.run(["project", "allow", "--note=test", "--", "1", "tracker.partner.example"]).succeeded)
        #expect(try keeper.value(forSession: 2, make: make) == 2)
        #expect(try keeper.value(forSession: 2, make: make) == 2)

        // A flow of the ended recording flushed again (its connection outlived the recording).
        let store = try History(path: console.database)
        let flow = try #require(try store.flows(inRecording: 2, limit: 1).first)
        var state = flow.state
        state.bytesIn += 1_000
        state.lastSeen = state.lastSeen.addingTimeInterval(5)
        let capture = try store.beginCaptureRun(toolVersion: "test", input: "test", at: Date()).id
        try store.write(HistoryBatch(flows: [FlowUpsert(handle: 1, rowID: flow.id, state: state)]), captureRun: capture)
        #expect(try keeper.value(forSession: 2, make: make) == 3)
        #expect(try keeper.value(forSession: 2, make: make) == 3)

        // A flow of another session changes nothing here.
        var daemon = try DaemonWrites(database: console.database)
        try daemon.flow(to: "elsewhere.example", port: 50_100)
        #expect(try keeper.value(forSession: 2, make: make) == 3)
    }

    @Test func anOpenRecordingIsNeverKept() throws {
        let console = try ConsoleUnderTest()
        #expect(console.runner.run(["session", "start", "--baseline", "--device=Pixel 8", "--os=Android 15", "--", "1"]).succeeded)
        let keeper = ClosedRecordingKeeper<Int>(library: ControlLibrary(location: DatabaseLocation(path: console.database)))
        let counter = Counter()
        let make = { () throws(ControlError) -> Int in counter.made += 1; return counter.made }
        #expect(try keeper.value(forSession: 3, make: make) == 1)
        #expect(try keeper.value(forSession: 3, make: make) == 2)
    }

    /// The page's findings and its flows' finding ids, after each change, against tvctl's.
    @Test func thePagesKeptFindingsAreTvctlFindingsAfterEveryChange() throws {
        let console = try ConsoleUnderTest()
        let session = try console.login()
        for change in [nil, ["project", "allow", "--note=test", "--", "1", "*.partner.example"], ["project", "disallow", "--", "1", "*.sentry.io"]] {
            if let change { #expect(console.runner.run(change).succeeded, "\(change)") }
            for _ in 0..<2 {
                let page = ConsoleUnderTest.text(of: console.get("/session/2", cookie: session.cookie))
                let text = console.runner.run(["findings", "--", "2"]).output.trimmingCharacters(in: .newlines)
                #expect(page.contains(HTML.escaped(text)), "\(String(describing: change))")
                let flows = ConsoleUnderTest.text(of: console.get("/session/2/flows", cookie: session.cookie))
                #expect(try Self.findingIDsByFlow(inPage: flows) == Self.findingIDsByFlow(json: console.runner.run(["findings", "--json", "--", "2"]).output))
            }
        }
    }

    /// Each flow's finding ids as `tvctl findings --json` lists them (flows behind none left out).
    static func findingIDsByFlow(json: String) throws -> [Int: [String]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        var ids: [Int: [String]] = [:]
        for finding in try #require(object["findings"] as? [[String: Any]]) {
            for flow in finding["flows"] as? [Int] ?? [] { ids[flow, default: []].append(finding["id"] as? String ?? "") }
        }
        return ids
    }

    /// The same read off the flows page's last column.
    static func findingIDsByFlow(inPage page: String) throws -> [Int: [String]] {
        var ids: [Int: [String]] = [:]
        for row in page.components(separatedBy: "<tr data-id=\"").dropFirst() {
            let id = try #require(Int(row.prefix { $0.isNumber }))
            let cell = ConsoleUnderTest.lastCell(ofRow: row)
            if cell != "—" { ids[id] = cell.split(separator: " ").map(String.init) }
        }
        return ids
    }
}
