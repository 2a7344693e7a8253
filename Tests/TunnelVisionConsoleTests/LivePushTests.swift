import Foundation
import Testing
import TunnelVisionConsole
import TunnelVisionControl
import TunnelVisionModel

/// The live flow list: a page's stream starts with the rows shown, then carries only the flows
/// changed after the history's change marker, within a second of their commit, and ends with the recording.
struct LivePushTests {
    struct Event {
        let name: String
        let data: [String: Any]
        var rows: [[String: Any]] { data["rows"] as? [[String: Any]] ?? [] }
    }

    /// The next event that is not a keep-alive, with how long it took.
    static func next(_ stream: @Sendable () -> String?) -> (Event?, TimeInterval) {
        let started = Date()
        while let text = stream() {
            guard !text.hasPrefix(":") else { continue }
            let lines = text.split(separator: "\n")
            let name = lines.first { $0.hasPrefix("event: ") }.map { String($0.dropFirst(7)) } ?? ""
            let data = lines.first { $0.hasPrefix("data: ") }.map { Data($0.dropFirst(6).utf8) } ?? Data()
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
            return (Event(name: name, data: object), Date().timeIntervalSince(started))
        }
        return (nil, Date().timeIntervalSince(started))
    }

    @Test func newAndUpdatedFlowsArePushedAloneAndTheStreamEndsWithTheRecording() throws {
        let console = try ConsoleUnderTest()
        let started = console.runner.run(["session", "start", "--release=2.5.0", "--build=320", "--device=Pixel 8", "--os=Android 15", "--", "1"])
        #expect(started.succeeded, "\(started.refusal)")
        var daemon = try DaemonWrites(database: console.database)
        let first = try daemon.flow(to: "api.acme.example", port: 50_001)
        let session = try console.login()
        let answer = console.get("/session/3/events", cookie: session.cookie)
        #expect(answer.headers.contains { $0.0 == "Content-Type" && $0.1.hasPrefix("text/event-stream") })
        guard case .stream(let next, let finished) = answer.body else {
            Issue.record("not a stream")
            return
        }
        defer { finished() }
        let (opening, _) = Self.next(next)
        #expect(opening?.name == "rows" && opening?.data["reset"] as? Bool == true)
        #expect(opening?.rows.map { ($0["id"] as? Int).map(Int64.init) } == [first])

        let second = try daemon.flow(to: "tracker.partner.example", port: 50_002)
        let (pushed, latency) = Self.next(next)
        #expect(latency < 1, "pushed within a second: \(latency)")
        #expect(pushed?.rows.count == 1, "only what changed")
        let cells = pushed?.rows.first?["cells"] as? [String] ?? []
        #expect(pushed?.rows.first?["id"] as? Int == Int(second))
        // The cells are those `tvctl flows` prints for that flow, with the phone third and the
        // findings last.
        let listed = console.runner.run(["flows", "--", "3"]).output
        let flowsCells = cells.count > 3 ? Array(cells[..<2] + cells[3..<(cells.count - 1)]) : []
        #expect(listed.split(separator: "\n").contains { line in
            line.split(separator: " ", omittingEmptySubsequences: true).map(String.init) == flowsCells.flatMap { $0.split(separator: " ").map(String.init) }
        }, "\(cells) in \(listed)")
        #expect((pushed?.data["headline"] as? String)?.contains("2 flows") == true)

        let ended = console.runner.run(["session", "end", "--", "3"])
        #expect(ended.succeeded)
        let (last, _) = Self.next(next)
        #expect(last?.name == "ended")
        #expect(Self.next(next).0 == nil, "the stream is over")
    }

    @Test func manyPagesFollowingOneRecordingShareOneRead() throws {
        let console = try ConsoleUnderTest()
        _ = console.runner.run(["session", "start", "--baseline", "--device=Pixel 8", "--os=Android 15", "--", "1"])
        let session = try console.login()
        let streams = (0..<20).compactMap { _ -> (@Sendable () -> String?, @Sendable () -> Void)? in
            if case .stream(let next, let finished) = console.get("/session/3/events", cookie: session.cookie).body { return (next, finished) }
            return nil
        }
        #expect(streams.count == 20)
        defer { streams.forEach { $0.1() } }
        streams.forEach { _ = Self.next($0.0) }
        var daemon = try DaemonWrites(database: console.database)
        let row = try daemon.flow(to: "api.acme.example", port: 50_010)
        for stream in streams {
            let (event, latency) = Self.next(stream.0)
            #expect(event?.rows.first?["id"] as? Int == Int(row) && latency < 1)
        }
    }

    @Test func aClosedRecordingsStreamSaysSoAtOnce() throws {
        let console = try ConsoleUnderTest()
        let session = try console.login()
        guard case .stream(let next, let finished) = console.get("/session/2/events", cookie: session.cookie).body else {
            Issue.record("not a stream")
            return
        }
        defer { finished() }
        #expect(Self.next(next).0?.name == "rows")
        #expect(Self.next(next).0?.name == "ended")
        #expect(Self.next(next).0 == nil)
    }

    /// A row's phone and findings: the recording's phone (the gateway's only one, registered
    /// here), and what the flow proves so far, judged again when consent is marked;
    /// once the recording ends, the statements `tvctl findings --json` puts the flow behind.
    @Test func eachRowNamesItsPhoneAndTheFindingsItIsBehindSoFar() throws {
        let console = try ConsoleUnderTest()
        var daemon = try DaemonWrites(database: console.database)
        _ = try daemon.store.addPhone(
            Phone(name: "pixel-8", ipv4: IPAddress(v4: 0x0A4D_0002), ipv6: IPAddress("fd77::2")!, publicKey: "key", keyFingerprint: "print"),
            at: Date())
        #expect(console.runner.run(["session", "start", "--release=2.5.0", "--build=320", "--device=Pixel 8", "--os=Android 15", "--", "1"]).succeeded)
        let early = try daemon.flow(to: "tracker.partner.example", port: 50_021)
        Thread.sleep(forTimeInterval: 0.01)
        let session = try console.login()
        guard case .stream(let next, let finished) = console.get("/session/3/events", cookie: session.cookie).body else {
            Issue.record("not a stream")
            return
        }
        defer { finished() }
        let cells = { (event: Event?, id: Int64) in event?.rows.first { $0["id"] as? Int == Int(id) }?["cells"] as? [String] ?? [] }
        let (opening, _) = Self.next(next)
        #expect(cells(opening, early).dropFirst(2).first == "pixel-8")
        let before = cells(opening, early).last

        // Consent given after the first flow: its findings change on every page at once.
        #expect(console.post("/session/3/mark", [("csrf", session.token), ("what", "consent")], cookie: session.cookie).status == 303)
        let (rejudged, latency) = Self.next(next)
        #expect(rejudged?.data["reset"] as? Bool == true && latency < 1)
        let after = cells(rejudged, early).last
        #expect(after != before, "consent given after it puts the flow before consent: \(String(describing: after))")
        Thread.sleep(forTimeInterval: 0.01)
        let late = try daemon.flow(to: "api.acme.example", port: 50_022)
        let (pushed, _) = Self.next(next)
        #expect(cells(pushed, late).dropFirst(2).first == "pixel-8")
        #expect(cells(pushed, late).last == "—", "an allowed host after consent, over TLS 1.3, proves nothing against the app")

        #expect(console.runner.run(["session", "end", "--", "3"]).succeeded)
        let judged = try #require(try JSONSerialization.jsonObject(with: Data(console.runner.run(["findings", "--json", "--", "3"]).output.utf8)) as? [String: Any])
        let findings = try #require(judged["findings"] as? [[String: Any]])
        let order = ["encryption", "tlsVersion", "host", "pinning", "consent", "certificateValidation"]
        let statements = findings
            .filter { ($0["flows"] as? [Int])?.contains(Int(early)) == true }
            .sorted { order.firstIndex(of: $0["check"] as? String ?? "") ?? 9 < order.firstIndex(of: $1["check"] as? String ?? "") ?? 9 }
            .compactMap { $0["statement"] as? String }
        #expect(statements.count >= 2, "outside the allowlist, and before consent")
        #expect(after == statements.joined(separator: " "))
    }
}
