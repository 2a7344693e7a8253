import TunnelVisionFlows
import TunnelVisionModel
import TunnelVisionWire

/// The flow engine as the recorder drives it: raw IP packets (the TUN device's and the capture
/// files' link type), one at a time, on the recorder's thread alone.
public final class LiveFlowEngine: PacketEngine {
    private var engine: FlowEngine

    public init(configuration: FlowEngineConfiguration) {
        engine = FlowEngine(configuration: configuration)
    }

    /// The engine for a daemon configuration: its client networks say which end is the phone.
    public convenience init(for configuration: DaemonConfiguration) {
        self.init(configuration: FlowEngineConfiguration(clientNetworks: configuration.clientNetworks.compactMap(IPNetwork.init)))
    }

    public func process(packet: UnsafeRawBufferPointer, wireLength: Int, timestampNanoseconds: Int64, location: CaptureLocation) {
        engine.process(packet: packet, linkType: .raw, timestampNanoseconds: timestampNanoseconds, wireLength: wireLength, location: location)
    }

    public func takeBatch(now: Int64) -> HistoryBatch { engine.takeBatch(now: now) }

    public func assign(rows: [FlowHandle: Int64]) { engine.assign(rows: rows) }

    public func finishAll() -> HistoryBatch { engine.finishAll() }
}
