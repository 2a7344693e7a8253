import Foundation
import Synchronization
import Testing
@testable import TunnelVisionDaemonLog

@Suite("The daemon's log lines carry a priority the journal reads")
struct DaemonLogTests {
    @Test("what loses evidence is an error, a gap said is a warning, routine is info")
    func priorities() {
        #expect(DaemonMessage.captureSuspended(cause: "disk full").priority == .error)
        #expect(DaemonMessage.batchRefused(cause: "locked").priority == .error)
        #expect(DaemonMessage.lostWithoutCleanStop(captureRun: 1, packets: 5).priority == .error)
        #expect(DaemonMessage.lostWithoutCleanStop(captureRun: 1, packets: 5).text
            == "capture session 1 lost at least 5 packets the tap had handed over, queued or in a batch not yet committed "
            + "when the daemon stopped; counted as daemonStopped")
        #expect(DaemonMessage.heartbeatFailed(cause: "locked").priority == .error)
        #expect(DaemonMessage.cutTornTail(path: "/x.pcap", bytes: 24).priority == .warning)
        #expect(DaemonMessage.recorderBehind(packets: 3).priority == .warning)
        #expect(DaemonMessage.started(input: "tun tv0", captureRun: 1, directory: "/c").priority == .info)
        #expect(DaemonMessage.stopped(packets: 1, notCaptured: 0).priority == .info)
        // syslog's numbers, which journald reads from the "<N>" in front of a line.
        #expect([DaemonLogPriority.error, .warning, .notice, .info].map(\.rawValue) == [3, 4, 5, 6])
    }

    @Test("a failure to start is said at error priority")
    func failureIsAnError() {
        let seen = Mutex<[DaemonLogPriority]>([])
        DaemonLog(sink: { priority, _ in seen.withLock { $0.append(priority) } }).fail("cannot open the history")
        #expect(seen.withLock { $0 } == [.error])
    }

    @Test("standard error is the journal only when JOURNAL_STREAM names it")
    func journalStream() {
        var info = stat()
        #expect(fstat(STDERR_FILENO, &info) == 0)
        #expect(DaemonLog.standardErrorIsTheJournal("\(info.st_dev):\(info.st_ino)"))
        #expect(!DaemonLog.standardErrorIsTheJournal("\(info.st_dev):\(info.st_ino &+ 1)"))
        #expect(!DaemonLog.standardErrorIsTheJournal(nil))
        #expect(!DaemonLog.standardErrorIsTheJournal("8:"))
        #expect(!DaemonLog.standardErrorIsTheJournal("not:a:stream"))
    }
}
