import Foundation
import Synchronization
import TunnelVisionCaptureFiles
import TunnelVisionConfiguration
import TunnelVisionDaemonLog
import TunnelVisionDatapath
import TunnelVisionImport
import TunnelVisionModel
import TunnelVisionRecorder
import TunnelVisionRelay
import TunnelVisionRetention
import TunnelVisionStore

/// Why the daemon did not start; each says what to do.
public enum DaemonStartError: Error, Sendable {
    case history(String)
    case captureDirectory(path: String, errno: Int32)
    case capture(CaptureWriteError)
    case tun(TunDeviceError)
    case interface(InterfaceTapError)
    case inputUnavailable(String)
    /// An offline import that failed or stopped before the file's end.
    case importFailed(OfflineImport.ImportError)
    case historyUnopened(HistoryError)
    case relay(RelayError)
    /// The key that seals finished capture files could not be read or made.
    case sealKey(CaptureSealKey.Failure)
}

/// One run of the daemon: one capture session from start to stop. The input thread and the
/// recorder thread run beside the caller's thread, which only waits for a stop signal.
public final class CaptureDaemon {
    public let configuration: DaemonConfiguration
    let history: CaptureHistory
    private let engine: PacketEngine
    private let log: DaemonLog
    private let notifier: ServiceManagerNotifier
    /// Where the relay's reports go on their way to the recorder; nil: no relay (tests, offline).
    private let relayInbox: RelayInbox?
    let toolVersion: String

    public init(configuration: DaemonConfiguration, history: CaptureHistory, engine: PacketEngine, toolVersion: String,
                relayInbox: RelayInbox? = nil, log: DaemonLog = DaemonLog(), notifier: ServiceManagerNotifier = ServiceManagerNotifier()) {
        self.configuration = configuration
        self.history = history
        self.engine = engine
        self.relayInbox = relayInbox
        self.toolVersion = toolVersion
        self.log = log
        self.notifier = notifier
    }

    /// Runs until SIGTERM or SIGINT, then ends the capture session; a file input (`--read`)
    /// runs to the file's end.
    public func run() throws(DaemonStartError) {
        let clock = PacketClock()
        if case .file(let path) = configuration.input {
            let summary = try runImport(path: path, clock: clock)
            log.say(.imported(path: path, packets: summary.packets, flows: summary.flows))
            if summary.impossibleTimestamps > 0 { log.say(.impossibleTimestamps(path: path, records: summary.impossibleTimestamps)) }
            return
        }
        StopSignals.block()
        let start = Date(nanosecondsSinceEpoch: clock.now())
        let session: CaptureRun
        let writer: CaptureFileWriter
        let sealer: CaptureSealer
        do {
            let interrupted = try history.closeInterruptedCaptureRuns()
            if !interrupted.isEmpty { log.say(.closedInterruptedSessions(interrupted)) }
            for id in interrupted {
                // Said only: the count is already in the history, and a failed read stops no capture.
                if let lost = (try? history.tally(ofCaptureRun: id))?.unaccounted, lost > 0 {
                    log.say(.lostWithoutCleanStop(captureRun: id, packets: lost))
                }
            }
            sealer = CaptureSealer(key: try CaptureSealKey(besideHistory: configuration.database).loadOrCreate(), history: history)
            try InterruptedRunMend.mendFiles(history: history, folder: configuration.captureDirectory, sealer: sealer, log: log)
            (session, writer) = try beginCapture(at: start)
        } catch {
            throw Self.startError(error)
        }
        // The relay runs before the settings say so: a session may only call inspection on
        // what is listening with a CA loaded.
        let relay = try startRelay()
        do {
            var settings = configuration.publishedSettings
            settings.relayRunning = relay != nil
            settings.caFingerprint = relay?.caFingerprint
            try history.saveDaemonSettings(settings, at: start)
        } catch {
            relay?.stop()
            throw Self.startError(error)
        }

        let queues = RecorderQueues(packetSlots: configuration.queuePackets, packetCapacity: configuration.queueSlotBytes,
                                    filled: relayInbox?.reportArrived ?? Doorbell())
        let counters = DatapathCounters()
        let source = try makeInput(queues: queues, counters: counters, clock: clock)
        let recorder = Recorder(queues: queues, counters: counters, writer: writer, engine: engine, history: history,
                                session: session, clock: clock, retention: configuration.retention, log: log,
                                virtioHeaderLength: source.virtioHeaderLength,
                                // Waiting, the tap itself says when and how long the recorder was stuck.
                                saysBehindEachSecond: !(source is TunForwarder && configuration.recorderBacklog == .wait),
                                sealer: sealer)
        let notifier = self.notifier
        recorder.onHeartbeat = { notifier.watchdog() }
        if let relay { recorder.addToHeartbeat = relayHeartbeat(relay) }

        let inputDone = DaemonThread.start(name: "tv-input") { source.run() }
        let recorderDone = DaemonThread.start(name: "tv-recorder") { recorder.run() }
        log.say(.started(input: configuration.input.label, captureRun: session.id, directory: configuration.captureDirectory))
        notifier.ready()

        let signal = StopSignals.wait(until: { inputDone.hasFinished })
        notifier.stopping()
        if let signal { log.say(.stopping(signal: signal)) }
        // The relay's last reports reach the recorder before its final commit.
        relay?.stop()
        source.stop()
        inputDone.join()
        recorder.stop()
        recorderDone.join()
        if let lost = (engine as? RecorderFlowEngine)?.relayUpdatesLost, lost > 0 { log.say(.relayUpdatesLost(lost)) }
        let end = Date(nanosecondsSinceEpoch: clock.now())
        try? history.endCaptureRun(id: session.id, at: end)
        // A clean stop leaves the whole history in the main file, as an import does.
        try? history.checkpoint()
        log.say(.stopped(packets: recorder.lastStatus.packetsSeen, notCaptured: recorder.lastStatus.packetsNotCaptured))
    }

    /// With inspection on and the inline tap: the relay, its CA loaded or made (in a directory of
    /// the daemon's own, made 0750 when missing, refused when anyone else owns or may write it), listening.
    private func startRelay() throws(DaemonStartError) -> RelayServer? {
        guard configuration.inspection, case .tun = configuration.input, let relayInbox else { return nil }
        let server: RelayServer
        do {
            server = try RelayServer(configuration: configuration.relayConfiguration, observer: relayInbox)
        } catch {
            throw .relay(error)
        }
        guard let fingerprint = server.caFingerprint else { return nil }
        server.start()
        log.say(.relayStarted(port: server.boundPort, ports: configuration.inspectedPorts, caFingerprint: fingerprint,
                              ceiling: server.connectionCeiling))
        return server
    }

    /// The relay's counts in each heartbeat, and each kind of trouble said once in the journal.
    private func relayHeartbeat(_ relay: RelayServer) -> (inout DaemonHeartbeat) -> Void {
        let counters = relay.counters, engine = engine as? RecorderFlowEngine, log = log
        let ceiling = relay.connectionCeiling, reserve = configuration.relayLimits.descriptorReserve
        var saidCeiling = false, saidUnmatched = false
        return { beat in
            let refused = counters.refusedAtCeiling.load(ordering: .relaxed)
            let unmatched = UInt64(engine?.relayReportsUnmatched ?? 0)
            beat.relayConnections = counters.live.load(ordering: .relaxed)
            beat.relayRefusedAtCeiling = refused
            beat.relayReportsUnmatched = unmatched
            if refused > 0, !saidCeiling {
                saidCeiling = true
                log.say(.relayAtCeiling(connections: ceiling, reserve: reserve))
            }
            if unmatched > 0, !saidUnmatched {
                saidUnmatched = true
                log.say(.relayReportUnmatched)
            }
        }
    }

    private func makeInput(queues: RecorderQueues, counters: DatapathCounters, clock: PacketClock) throws(DaemonStartError) -> PacketSource {
        switch configuration.input {
        case .tun(let name):
            do {
                let device = try TunDevice(name: name, segmentationOffload: configuration.segmentationOffload)
                switch device.reads {
                case .offload(let udp): log.say(.tunOffload(device: name, udp: udp))
                case .plain: log.say(.tunPlain(device: name, refusedErrno: nil))
                case .plainRefused(let code): log.say(.tunPlain(device: name, refusedErrno: code))
                }
                return TunForwarder(device: device, queues: queues, counters: counters, clock: clock,
                                    backlog: configuration.recorderBacklog,
                                    waitMilliseconds: configuration.recorderWaitMilliseconds, log: log)
            } catch {
                throw .tun(error)
            }
        case .interface(let name):
            do {
                return try InterfaceTap(interface: name, snapshotLength: Int(configuration.snapshotLength),
                                        queues: queues, counters: counters, clock: clock)
            } catch { throw .interface(error) }
        case .file:
            throw .inputUnavailable(configuration.input.label)  // read by runImport, never live
        }
    }

    /// This run's capture session, and the writer of its files.
    func beginCapture(at start: Date) throws -> (CaptureRun, CaptureFileWriter) {
        // The directory first: a daemon that cannot write files must not leave a capture session
        // behind at every try of a crash loop.
        try makeDirectory(configuration.captureDirectory)
        let session = try history.beginCaptureRun(toolVersion: toolVersion, input: configuration.input.label, at: start)
        let writer = try CaptureFileWriter(configuration: configuration.captureFiles,
                                           highestSequenceInHistory: history.highestCaptureFileSequence())
        return (session, writer)
    }

    /// A failed start-up step, as the error the daemon reports it with.
    static func startError(_ error: any Error) -> DaemonStartError {
        switch error {
        case let error as DaemonStartError: error
        case let error as CaptureWriteError: .capture(error)
        case let error as CaptureSealKey.Failure: .sealKey(error)
        default: .history(String(describing: error))
        }
    }

    /// The installed directory is made by tmpfiles.d (setgid, in the group) and only checked here:
    /// the unit's sandbox (RestrictSUIDSGID=) refuses any mkdir that asks for the setgid bit, even
    /// one that would find the directory there. A directory made here inherits setgid from its parent.
    func makeDirectory(_ path: String) throws(DaemonStartError) {
        var info = stat()
        if stat(path, &info) != 0 {
            guard errno == ENOENT else { throw .captureDirectory(path: path, errno: errno) }
            if mkdir(path, 0o770) != 0, errno != EEXIST { throw .captureDirectory(path: path, errno: errno) }
        }
        guard access(path, W_OK) == 0 else { throw .captureDirectory(path: path, errno: errno) }
    }
}

/// A thread that can be waited for.
final class DaemonThread: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let finished = Atomic<Bool>(false)

    static func start(name: String, _ body: @escaping @Sendable () -> Void) -> DaemonThread {
        let handle = DaemonThread()
        let thread = Thread {
            body()
            handle.finished.store(true, ordering: .releasing)
            handle.done.signal()
        }
        thread.name = name
        thread.start()
        return handle
    }

    var hasFinished: Bool { finished.load(ordering: .acquiring) }

    func join() { done.wait() }
}

/// SIGTERM and SIGINT, taken synchronously by the main thread.
enum StopSignals {
    static func block() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// The signal that arrived, or nil when `otherwise` became true first.
    static func wait(until otherwise: () -> Bool) -> Int32? {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        var timeout = timespec(tv_sec: 0, tv_nsec: 200_000_000)
        while !otherwise() {
            let signal = sigtimedwait(&set, nil, &timeout)
            if signal > 0 { return signal }
        }
        return nil
    }
}
