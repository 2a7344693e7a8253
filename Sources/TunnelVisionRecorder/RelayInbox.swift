import Glibc
import Synchronization
import TunnelVisionDatapath
import TunnelVisionModel
import TunnelVisionRelay

/// The relay's messages on their way to the recorder thread, the single writer of the history:
/// the relay's thread queues, the recorder applies them to the flow engine between packets.
public final class RelayInbox: RelayObserver, Sendable {
    struct Message: Sendable {
        let key: FlowKey
        let update: RelayFlowUpdate
        /// When the relay sent it (monotonic), so an update for a flow never seen can be given up.
        let queuedAt: Int64
    }

    private let messages = Mutex<[Message]>([])
    /// Rung with each report, so a recorder asleep on an idle queue commits it at once, not at
    /// the end of its commit interval: the daemon makes it the doorbell of the recorder's queues.
    public let reportArrived = Doorbell()
    private let waiting = Atomic<Int>(0)
    /// A report is among the waiting messages: the recorder commits it at once.
    private let reportWaiting = Atomic<Bool>(false)
    /// The open recording's mode (which leaf its phone is shown); without it every connection gets the installed CA's leaf.
    private let recordings: RecordingLookup?
    /// The recording each leg's leaf was chosen for, until it is presented.
    private let presentedFor = Mutex<[FlowKey: Int64]>([:])
    /// Bounds the queue when the recorder is stalled: a connection sends a few messages at most.
    static let capacity = 65_536
    /// Messages refused at the bound; their facts never reach the history.
    let refused = Atomic<Int>(0)

    public init(recordings: RecordingLookup? = nil) {
        self.recordings = recordings
    }

    /// Cheap enough to ask before every packet.
    var hasMessages: Bool { waiting.load(ordering: .acquiring) > 0 }
    var hasReports: Bool { reportWaiting.load(ordering: .acquiring) }

    func take() -> [Message] {
        messages.withLock { queued in
            defer { queued.removeAll(keepingCapacity: true) }
            waiting.store(0, ordering: .releasing)
            reportWaiting.store(false, ordering: .releasing)
            return queued
        }
    }

    func queue(_ key: FlowKey, _ update: RelayFlowUpdate, isReport: Bool = false) {
        let message = Message(key: key, update: update, queuedAt: MonotonicNanoseconds.now())
        messages.withLock { queued in
            guard queued.count < Self.capacity else {
                refused.add(1, ordering: .relaxed)
                return
            }
            queued.append(message)
            waiting.store(queued.count, ordering: .releasing)
            if isReport { reportWaiting.store(true, ordering: .releasing) }
        }
        if isReport { reportArrived.ring() }
    }

    public func relayWillAnswer(_ leg: RelayPhoneLeg) { queue(leg.flowKey, .answering) }
    public func relayDidRollBack(_ leg: RelayPhoneLeg) { queue(leg.flowKey, .rolledBack) }
    public func relayDidReport(_ report: RelayReport) {
        if report.isFinal { presentedFor.withLock { _ = $0.removeValue(forKey: report.phoneLeg.flowKey) } }
        queue(report.phoneLeg.flowKey, report.flowUpdate, isReport: true)
    }

    public func presentation(for leg: RelayPhoneLeg) -> RequestedLeaf? {
        guard let recordings else { return .installedAuthority }
        guard let presentation = recordings.presentation(client: leg.phone.address) else { return nil }
        if let session = presentation.sessionID { presentedFor.withLock { $0[leg.flowKey] = session } }
        return presentation
    }

    public func relayDidPresent(_ leaf: ShownLeaf, on leg: RelayPhoneLeg) {
        let session = presentedFor.withLock { $0.removeValue(forKey: leg.flowKey) }
        recordings?.recordIssuer(of: leaf, sessionID: session)
    }
}

/// CLOCK_MONOTONIC in nanoseconds.
enum MonotonicNanoseconds {
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
