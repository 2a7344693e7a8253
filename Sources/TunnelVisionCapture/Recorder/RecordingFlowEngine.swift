import TunnelVisionFlows
import TunnelVisionModel
import TunnelVisionWire

/// The flow engine as the recorder drives it: raw IP packets, on the recorder's thread only.
public final class RecordingFlowEngine: PacketEngine {
    private var engine: FlowEngine

    public init(configuration: FlowEngineConfiguration) {
        engine = FlowEngine(configuration: configuration)
    }

    public func process(packet: UnsafeRawBufferPointer, wireLength: Int, timestampNanoseconds: Int64, location: CaptureLocation) {
        engine.process(packet: packet, linkType: .raw, timestampNanoseconds: timestampNanoseconds, wireLength: wireLength, location: location)
    }

    public func takeBatch(now: Int64) -> HistoryBatch { engine.takeBatch(now: now) }
    public func assign(rows: [FlowHandle: Int64]) { engine.assign(rows: rows) }
    public func finishAll() -> HistoryBatch { engine.finishAll() }
}

extension DaemonConfiguration {
    /// The phone's end of each flow is the one inside the configured client networks.
    public var flowEngine: FlowEngineConfiguration {
        FlowEngineConfiguration(clientNetworks: clientNetworks.compactMap(IPNetwork.init))
    }
}
