import TunnelVisionFlows
import TunnelVisionModel
import TunnelVisionWire

/// Where an import's history goes: the store's batched writer. It answers with the rows it gave
/// the flows it inserted.
public protocol HistoryWriting {
    mutating func write(_ batch: HistoryBatch, captureSession: Int64) throws -> [FlowHandle: Int64]
}

/// Where an import's packets are copied: the rotating capture files, raw IP (named as the
/// daemon's capture file writer names it).
public protocol CapturedPacketWriting {
    /// Appends one raw IP packet; answers where its record now is.
    mutating func write(_ packet: UnsafeRawBufferPointer, timestampNanoseconds: Int64) throws -> CaptureLocation
}

/// Reads a pcap or pcapng file as if it had crossed the tap: the same engine, the same store,
/// the packets copied (as raw IP, the capture files' link type) so that an import exports like a
/// recording. The phone's end is the configured networks' or, without them, each flow's initiator.
public struct OfflineImport {
    public struct Summary: Sendable, Hashable {
        public var packets = 0
        public var flows = 0
        public var undecodable: UInt64 = 0
        public var batches = 0
    }

    public enum ImportError: Error, CustomStringConvertible {
        case capture(CaptureImportReader.OpenError)
        /// The store refused a batch; what was written before it stays.
        case history(any Error)
        /// A packet could not be copied into the capture files.
        case packetCopy(any Error)

        public var description: String {
            switch self {
            case .capture(let error): "\(error)"
            case .history(let error): "the history store refused the import's flows: \(error)"
            case .packetCopy(let error): "the import's packets could not be copied into the capture files: \(error)"
            }
        }
    }

    /// Packets between two writes to the store: big enough to amortise a transaction.
    public static let packetsPerBatch = 8192

    public static func run<History: HistoryWriting, Packets: CapturedPacketWriting>(
        path: String, history: inout History, captureSession: Int64, packets: inout Packets?,
        configuration: FlowEngineConfiguration = FlowEngineConfiguration()
    ) throws(ImportError) -> Summary {
        let reader: CaptureImportReader
        do { reader = try CaptureImportReader(path: path) } catch { throw .capture(error) }
        var engine = FlowEngine(configuration: configuration)
        var summary = Summary()
        var failure: ImportError?
        var latest: Int64 = 0

        func flush(_ batch: HistoryBatch) -> Bool {
            guard !batch.isEmpty else { return true }
            do {
                let rows = try history.write(batch, captureSession: captureSession)
                engine.assign(rows: rows)
                summary.batches += 1
                summary.flows += batch.flows.filter { $0.rowID == nil }.count
                return true
            } catch {
                failure = .history(error)
                return false
            }
        }

        reader.forEachPacket { packet in
            summary.packets += 1
            latest = max(latest, packet.timestampNanoseconds)
            var location = CaptureLocation.notCaptured
            // The packet row describes the raw IP record the capture files hold, not the foreign frame.
            var wireLength = packet.wireLength
            if let network = reader.linkType.networkPayload(of: packet.bytes) {
                wireLength = max(packet.wireLength - (packet.capturedLength - network.count), network.count)
                do {
                    location = try packets?.write(network, timestampNanoseconds: packet.timestampNanoseconds) ?? .notCaptured
                } catch {
                    failure = .packetCopy(error)
                    return false
                }
            }
            engine.process(packet: packet.bytes, linkType: reader.linkType, timestampNanoseconds: packet.timestampNanoseconds,
                           wireLength: wireLength, location: location)
            if summary.packets % Self.packetsPerBatch == 0 { return flush(engine.takeBatch(now: latest)) }
            return true
        }
        if let failure { throw failure }
        _ = flush(engine.finishAll())
        if let failure { throw failure }
        summary.undecodable = engine.statistics.undecodable
        return summary
    }
}
