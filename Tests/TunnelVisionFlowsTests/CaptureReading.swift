import Foundation
import TunnelVisionFlows
import TunnelVisionImport
import TunnelVisionModel

/// The engine's reading of a real capture: every flow's last state and the DNS answers.
struct CaptureReading {
    var flows: [FlowState] = []
    var dnsAnswers: [DNSAnswerRecord] = []
    var statistics = FlowEngineStatistics()

    /// The external corpus, an extra: TV_EXTERNAL_CAPTURES, else shared/captures/external beside the repository.
    static let directory = ProcessInfo.processInfo.environment["TV_EXTERNAL_CAPTURES"]
        ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../shared/captures/external").standardized.path
    static let externalIsPresent = FileManager.default.fileExists(atPath: directory)

    /// The wire lab's captures (scripts/record-wire-captures), always in the repository.
    static let labDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Captures/wire").standardized.path

    init(_ relativePath: String, configuration: FlowEngineConfiguration = FlowEngineConfiguration()) throws {
        try self.init(path: "\(Self.directory)/\(relativePath)", configuration: configuration)
    }

    init(lab name: String) throws {
        try self.init(path: "\(Self.labDirectory)/\(name)")
    }

    init(path: String, configuration: FlowEngineConfiguration = FlowEngineConfiguration()) throws {
        let reader = try CaptureImportReader(path: path)
        var engine = FlowEngine(configuration: configuration)
        var latest: [FlowHandle: FlowState] = [:]
        var order: [FlowHandle] = []
        func absorb(_ batch: HistoryBatch) {
            for upsert in batch.flows {
                if latest[upsert.handle] == nil { order.append(upsert.handle) }
                latest[upsert.handle] = upsert.state
            }
            dnsAnswers += batch.dnsAnswers
        }
        try reader.forEachPacket { packet in
            guard let time = packet.timestampNanoseconds else { return true }
            engine.process(packet: packet.bytes, linkType: reader.linkType, timestampNanoseconds: time, wireLength: packet.wireLength)
            return true
        }
        absorb(engine.finishAll())
        flows = order.compactMap { latest[$0] }
        statistics = engine.statistics
    }

    /// The busiest flow with this port — the one a case is about.
    func flow(toPort port: UInt16) -> FlowState? {
        flows.filter { $0.key.endpointA.port == port || $0.key.endpointB.port == port }.max { $0.packetCount < $1.packetCount }
    }
}
