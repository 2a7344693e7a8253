import ControlFixture
import Foundation
import Testing
import TunnelVisionConsole
import TunnelVisionControl
import TunnelVisionModel
import TunnelVisionStore

/// scripts/bench-web's measurements, run only when it asks (TUNNELVISION_BENCH_WEB=1): the page
/// of a closed recording of 10,000 flows, and the push from a commit to 20 following pages.
/// Prints a table; asserts only that every push arrived. This is the console in this process,
/// in whatever build the tests are; scripts/bench-web measures the release tvconsole over HTTP
/// on a history `prepareHistory` writes, while `commitFlows` commits in another process.
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
        try Self.seed(console.runner)
        let session = try console.login()
        var render: [Double] = []
        var bytes = 0
        for _ in 0..<21 {
            let before = Date()
            let page = console.get("/session/3", cookie: session.cookie)
            render.append(Date().timeIntervalSince(before))
            bytes = ConsoleUnderTest.text(of: page).utf8.count
        }
        // The first view assesses every flow and keeps the findings; the others check that
        // nothing they were made from changed and show them.
        let first = render.removeFirst()
        print("\nmeasurement                                               runs    median        p99        max   goal")
        Self.row("closed recording page, 10,000 flows (\(bytes / 1024) KiB)", render, goal: "median <= 50 ms")
        Self.row("  its first view (assesses and keeps the findings)", [first], goal: "")

        // 20 pages follow the open recording; each commit is timed to its arrival on every page.
        let streams = (0..<20).compactMap { _ -> (@Sendable () -> String?, @Sendable () -> Void)? in
            if case .stream(let next, let finished) = console.get("/session/4/events", cookie: session.cookie).body { return (next, finished) }
            return nil
        }
        defer { streams.forEach { $0.1() } }
        streams.forEach { _ = LivePushTests.next($0.0) }
        var daemon = try DaemonWrites(database: console.database)
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

    /// Session 3 closed with 10,000 flows, session 4 open, on the fixture's history.
    static func seed(_ runner: CommandRunner) throws {
        #expect(runner.run(["session", "start", "--release=5.0", "--build=500", "--device=bench", "--os=bench", "--", "1"]).succeeded)
        var daemon = try DaemonWrites(database: runner.database)
        // 10,000 flows, committed in batches as the recorder does.
        try daemon.flows(count: 10_000, batch: 500)
        #expect(runner.run(["session", "end", "--", "3"]).succeeded)
        #expect(runner.run(["session", "start", "--baseline", "--device=bench", "--os=bench", "--", "1"]).succeeded)
    }
}

/// The history scripts/bench-web serves with the release tvconsole, and the commits it times.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["TUNNELVISION_BENCH_WEB_HISTORY"] != nil))
struct ConsoleBenchmarkHistory {
    static var path: String { ProcessInfo.processInfo.environment["TUNNELVISION_BENCH_WEB_HISTORY"] ?? "" }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["TUNNELVISION_BENCH_WEB_STEP"] == "prepare"))
    func prepareHistory() throws {
        let runner = CommandRunner(database: Self.path, toolVersion: "bench")
        #expect(TVFixture.seed(database: Self.path, toolVersion: "bench").status == 0)
        try ConsoleBenchmark.seed(runner)
    }

    /// 100 flows of session 4, one commit each, every 100 ms; each commit's instant on a line.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["TUNNELVISION_BENCH_WEB_STEP"] == "commit"))
    func commitFlows() throws {
        var daemon = try DaemonWrites(database: Self.path)
        for index in 0..<100 {
            try daemon.flow(to: "push-\(index).example", port: UInt16(20_000 + index))
            let line = String(format: "committed push-%d.example %.6f\n", index, Date().timeIntervalSince1970)
            FileHandle.standardOutput.write(Data(line.utf8))
            Thread.sleep(forTimeInterval: 0.1)
        }
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
            _ = try store.write(HistoryBatch(flows: upserts), captureRun: captureRun)
            written += upserts.count
        }
    }
}
