import Foundation
import Testing
import TunnelVisionConsole
import TunnelVisionControl
import TunnelVisionModel
import TunnelVisionStore

/// scripts/bench-web's measurements, run only when it asks (TUNNELVISION_BENCH_WEB=1): the page
/// of a closed recording of 10,000 flows, and the push from a commit to 20 following pages.
/// Prints a table; asserts only that every push arrived.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["TUNNELVISION_BENCH_WEB"] == "1"))
struct ConsoleBenchmark {
    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
    }

    static func row(_ label: String, _ values: [Double], goal: String) {
        print(label.padding(toLength: 56, withPad: " ", startingAt: 0) + String(format: " %5d  %8.1f ms  %8.1f ms  %8.1f ms   ", values.count,
                     percentile(values, 0.5) * 1000, percentile(values, 0.99) * 1000, values.max()! * 1000) + goal)
    }

    @Test func renderAndPush() throws {
        let console = try ConsoleUnderTest()
        let started = console.runner.run(["session", "start", "--release=5.0", "--build=500", "--device=bench", "--os=bench", "--", "1"])
        #expect(started.succeeded)
        var daemon = try DaemonWrites(database: console.database)
        // 10,000 flows, committed in batches as the recorder does.
        try daemon.flows(count: 10_000, batch: 500)
        #expect(console.runner.run(["session", "end", "--", "3"]).succeeded)
        let session = try console.login()
        var render: [Double] = []
        var bytes = 0
        for _ in 0..<21 {
            let before = Date()
            let page = console.get("/session/3", cookie: session.cookie)
            render.append(Date().timeIntervalSince(before))
            bytes = ConsoleUnderTest.text(of: page).utf8.count
        }
        render.removeFirst()  // the first read warms SQLite's cache
        print("\nmeasurement                                               runs    median        p99        max   goal")
        Self.row("closed recording page, 10,000 flows (\(bytes / 1024) KiB)", render, goal: "median <= 50 ms")
        // Where the page's time goes: the commands it runs, each on its own.
        for (label, arguments) in [("  of which tvctl findings", ["findings", "--", "3"]), ("  of which tvctl session show", ["session", "show", "--", "3"])] {
            var times: [Double] = []
            for _ in 0..<10 {
                let before = Date()
                _ = console.runner.run(arguments)
                times.append(Date().timeIntervalSince(before))
            }
            Self.row(label, times, goal: "")
        }

        // 20 pages follow a new recording; each commit is timed to its arrival on every page.
        #expect(console.runner.run(["session", "start", "--baseline", "--device=bench", "--os=bench", "--", "1"]).succeeded)
        let streams = (0..<20).compactMap { _ -> (@Sendable () -> String?, @Sendable () -> Void)? in
            if case .stream(let next, let finished) = console.get("/session/4/events", cookie: session.cookie).body { return (next, finished) }
            return nil
        }
        defer { streams.forEach { $0.1() } }
        streams.forEach { _ = LivePushTests.next($0.0) }
        var latencies: [Double] = []
        for index in 0..<100 {
            let committed = Date()
            try daemon.flow(to: "push-\(index).example", port: UInt16(20_000 + index))
            for stream in streams {
                let (event, _) = LivePushTests.next(stream.0)
                #expect(event?.name == "rows")
                latencies.append(Date().timeIntervalSince(committed))
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Self.row("push, commit to page (20 pages x 100 commits)", latencies, goal: "p99 <= 1000 ms")
    }
}

extension DaemonWrites {
    /// `count` flows in batches of `batch`, one commit per batch.
    mutating func flows(count: Int, batch: Int) throws {
        var written = 0
        while written < count {
            var upserts: [FlowUpsert] = []
            for index in written..<min(count, written + batch) {
                handle += 1
                upserts.append(FlowUpsert(handle: handle, rowID: nil, state: Self.state(host: "host-\(index % 700).example", port: UInt16(10_000 + index % 50_000))))
            }
            _ = try store.write(HistoryBatch(flows: upserts), captureSession: captureSession)
            written += upserts.count
        }
    }
}
