import Foundation
import Synchronization
import Testing
@testable import TunnelVisionControl
import TunnelVisionStore

/// Issue 19: what a deliberate attempt to break tvctl found, each fixed where the input enters.
struct HostileInputTests {
    /// tvctl in this process, with the clock and environment a test chooses.
    static func run(_ arguments: [String], database: String, clock: Date) -> (status: Int32, error: String) {
        let errors = Mutex("")
        let console = Console(writeOutput: { _ in }, writeError: { text in errors.withLock { $0 += text } },
                              readLine: { nil }, outputIsTerminal: false, inputIsTerminal: false)
        let invocation = Invocation(console: console, environment: ["TUNNELVISION_DB": database], startedAt: clock, clock: { clock })
        let status = TVCtl.run(arguments, invocation: invocation)
        return (status, errors.withLock { $0 })
    }

    // Item 4: a system clock past 2262 trapped `session start` with SIGILL.
    @Test func aClockPastWhatTheHistoryHoldsIsRefusedNotStored() throws {
        let history = try ScratchHistory.seeded()
        let future = Date(timeIntervalSince1970: 9_300_000_000)
        let run = Self.run(["session", "start", "1", "--baseline", "--device", "Pixel 8", "--os", "Android 15"],
                           database: history.path, clock: future)
        #expect(run.status == 2)
        #expect(run.error.contains("is outside what the history can hold (1677-09-22 to 2262-04-11)"), "\(run.error)")
        #expect(try history.open().openAuditSession() == nil)
        let fixture = Self.run(["fixture", "--name", "Later"], database: history.path, clock: future)
        #expect(fixture.status == 2)
    }
}
