import TunnelVisionFlows
import TunnelVisionModel
import TunnelVisionWire

/// The flow engine as the recorder drives it: raw IP packets, on the recorder's thread only.
public final class RecorderFlowEngine: PacketEngine {
    private var engine: FlowEngine
    /// The relay's messages, applied between packets so that the flag on a flow's server side
    /// is set before the packets our TLS server sends are read.
    private let relay: RelayInbox?
    /// Messages whose flow the engine has not seen yet (the relay accepted before the recorder
    /// read the SYN), tried again until they are this old.
    private var unapplied: [RelayInbox.Message] = []
    static let unappliedPatience: Int64 = 10_000_000_000
    /// How long a message waits for its flow before it is counted as matching none.
    var unappliedPatienceNanoseconds = RecorderFlowEngine.unappliedPatience
    private var unappliedGivenUp = 0
    private var reportsGivenUp = 0

    /// Relay messages that never reached a flow: refused at the inbox's bound, or naming a flow the tap never saw.
    public var relayUpdatesLost: Int { unappliedGivenUp + (relay?.refused.load(ordering: .relaxed) ?? 0) }
    /// Reports of the relay whose facts never reached a flow (refused at the inbox's bound counts too).
    public var relayReportsUnmatched: Int { reportsGivenUp + (relay?.refused.load(ordering: .relaxed) ?? 0) }

    public init(configuration: FlowEngineConfiguration, relay: RelayInbox? = nil) {
        engine = FlowEngine(configuration: configuration)
        self.relay = relay
    }

    public func process(packet: UnsafeRawBufferPointer, wireLength: Int, timestampNanoseconds: Int64, location: CaptureLocation) {
        if let relay, relay.hasMessages { applyRelayMessages(relay.take()) }
        engine.process(packet: packet, linkType: .raw, timestampNanoseconds: timestampNanoseconds, wireLength: wireLength, location: location)
    }

    /// A report from the relay (an outcome, an event, the key log) is known only to this process:
    /// one waits in the inbox, or was applied to its flow since the last batch.
    public var hasFactsToKeep: Bool { reportApplied || relay?.hasReports == true }
    private var reportApplied = false

    public func takeBatch(now: Int64) -> HistoryBatch {
        if let relay { applyRelayMessages(relay.take()) }
        reportApplied = false
        return engine.takeBatch(now: now)
    }

    public func assign(rows: [FlowHandle: Int64], of batch: HistoryBatch) { engine.assign(rows: rows, of: batch) }

    public func finishAll() -> HistoryBatch {
        if let relay { applyRelayMessages(relay.take()) }
        return engine.finishAll()
    }

    /// In the order the relay sent them; a flow's later message waits behind its earlier one.
    private func applyRelayMessages(_ arrived: [RelayInbox.Message]) {
        guard !arrived.isEmpty || !unapplied.isEmpty else { return }
        let messages = unapplied + arrived
        unapplied.removeAll(keepingCapacity: true)
        var waitingKeys = Set<FlowKey>()
        let now = MonotonicNanoseconds.now()
        for message in messages {
            if !waitingKeys.contains(message.key), engine.apply(message.update, to: message.key) {
                if case .reported = message.update { reportApplied = true }
                continue
            }
            if now - message.queuedAt > unappliedPatienceNanoseconds {
                unappliedGivenUp += 1
                if case .reported = message.update { reportsGivenUp += 1 }
                continue
            }
            waitingKeys.insert(message.key)
            unapplied.append(message)
        }
    }
}
