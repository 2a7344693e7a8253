import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionFlows
import TunnelVisionModel
import TunnelVisionRecorder
import TunnelVisionStore
import TunnelVisionWire

/// Reads a pcap or pcapng file as if it had crossed the tap: the same engine, the same store,
/// its own capture session, and the packets copied (as raw IP, the capture files' link type)
/// into the rotating capture files, so that an imported capture exports like a recorded one.
/// The phone's end is the configured networks' or, without them, each flow's initiator. An import
/// never joins an open recording.
public enum OfflineImport {
    public struct Summary: Sendable, Hashable {
        public var captureRun: Int64 = 0
        public var packets = 0
        public var flows = 0
        /// Frames without a readable IP packet: copied, but on no flow.
        public var undecodable: UInt64 = 0
        public var captureFiles = 0
        /// Records whose stamp no instant matches (see `CaptureImportReader.nanoseconds`):
        /// counted and reported, never stored as history.
        public var impossibleTimestamps = 0
    }

    public enum ImportError: Error, CustomStringConvertible {
        case capture(CaptureImportReader.OpenError)
        /// The capture directory could not be made.
        case captureDirectory(path: String, reason: String)
        /// The history refused to open or to take a batch; what was committed before stays.
        case history(any Error)
        case captureFiles(CaptureWriteError)
        /// libpcap could not read a record: what came before it is imported, the rest is not.
        case stoppedEarly(path: String, packet: Int, imported: Int, captureRun: Int64, reason: String)
        /// A pcapng whose interfaces have different link types, which libpcap reads one of.
        case severalLinkTypes(path: String, imported: Int, captureRun: Int64)

        public var description: String {
            switch self {
            case .capture(let error): "\(error)"
            case .captureDirectory(let path, let reason): "cannot create the capture directory \(path): \(reason)"
            case .history(let error): "the history refused the import: \(error)"
            case .captureFiles(let error): "the packets could not be copied into the capture files: \(error)"
            case .stoppedEarly(let path, let packet, let imported, let session, let reason):
                "reading \(path) stopped at packet \(packet) (\(reason)): \(imported) packets before it are imported as capture session \(session), the rest of the file is not; the file is damaged or truncated"
            case .severalLinkTypes(let path, let imported, let session):
                "\(path) is a pcapng whose interfaces have different link types, and only the first type is read: \(imported) packets are imported as capture session \(session), the rest is not; split the file by interface (tshark -r FILE -Y 'frame.interface_id == N' -w PART) and import each part"
            }
        }
    }

    /// Packets between two commits: enough to amortise a transaction and an fsync.
    public static let packetsPerBatch = 8192

    /// Imports into the history the caller opened (the daemon's), so that an import and a live
    /// capture write through one store and one commit path.
    public static func run(
        _ request: OfflineImportRequest, into history: CaptureHistory, toolVersion: String, clock: () -> Date = Date.init,
        sealer: CaptureSealer? = nil
    ) throws(ImportError) -> Summary {
        // The history keeps the files' paths: they must not depend on where the import ran.
        var request = request
        request.captureDirectory = URL(fileURLWithPath: request.captureDirectory).standardizedFileURL.path
        request.capturePath = URL(fileURLWithPath: request.capturePath).standardizedFileURL.path
        let reader: CaptureImportReader
        do { reader = try CaptureImportReader(path: request.capturePath) } catch { throw .capture(error) }
        do {
            try FileManager.default.createDirectory(atPath: request.captureDirectory, withIntermediateDirectories: true)
        } catch {
            throw .captureDirectory(path: request.captureDirectory, reason: error.localizedDescription)
        }
        let session: CaptureRun, writer: CaptureFileWriter
        do {
            session = try history.beginCaptureRun(toolVersion: toolVersion, input: "file:\(request.capturePath)", at: clock())
        } catch {
            throw .history(error)
        }
        do {
            writer = try CaptureFileWriter(
                // Records are staged into the hashing stage's buffers and go out a megabyte at a
                // time (`Importer.copy`): one write per record was the largest cost of an import.
                configuration: CaptureFileConfiguration(directory: request.captureDirectory, rotationBytes: request.rotationBytes),
                highestSequenceInHistory: (try? history.highestCaptureFileSequence()) ?? 0
            )
        } catch {
            throw .captureFiles(error)
        }
        var importer = Importer(commitPath: .untagged(writer: writer, history: history, captureRun: session.id, sealer: sealer),
                                engine: FlowEngine(configuration: FlowEngineConfiguration(clientNetworks: request.clientNetworks)))
        var readError: CaptureImportReader.ReadError?
        do { try reader.forEachPacket { packet in importer.take(packet, linkType: reader.linkType) } } catch { readError = error }
        // What was read before a read error is committed and its session closed, so that the
        // history and the capture files agree; then the import fails, naming where it stopped.
        try importer.finish()
        do { try history.endCaptureRun(id: session.id, at: clock()) } catch { throw .history(error) }
        // An import ends with everything in the main file: a copy of it alone is the history.
        do { try history.checkpoint() } catch { throw .history(error) }
        importer.summary.captureRun = session.id
        if let readError {
            let imported = importer.summary.packets
            throw readError.isSecondLinkType
                ? .severalLinkTypes(path: request.capturePath, imported: imported, captureRun: session.id)
                : .stoppedEarly(path: request.capturePath, packet: readError.packet, imported: imported,
                                captureRun: session.id, reason: readError.reason)
        }
        return importer.summary
    }
}

/// One import's running state: the engine and the commits, which stop at the first failure.
private struct Importer {
    let commitPath: HistoryCommit
    var engine: FlowEngine
    var summary = OfflineImport.Summary()
    var failure: OfflineImport.ImportError?
    var latest: Int64 = 0

    private var writer: CaptureFileWriter { commitPath.writer }

    init(commitPath: HistoryCommit, engine: FlowEngine) {
        self.commitPath = commitPath
        self.engine = engine
    }

    /// Copies and reads one packet; false stops the reading after a failure.
    mutating func take(_ packet: CaptureImportReader.Packet, linkType: LinkType) -> Bool {
        guard let timestamp = packet.timestampNanoseconds else {
            summary.impossibleTimestamps += 1
            return true
        }
        summary.packets += 1
        latest = max(latest, timestamp)
        var location = CaptureLocation.notCaptured
        // The packet row describes the raw IP record the capture files hold, not the foreign frame.
        var wireLength = packet.wireLength
        if let network = linkType.networkPayload(of: packet.bytes) {
            wireLength = max(packet.wireLength - (packet.capturedLength - network.count), network.count)
            do {
                location = try copy(network, timestampNanoseconds: timestamp)
            } catch {
                failure = .captureFiles(error)
                return false
            }
        }
        engine.process(packet: packet.bytes, linkType: linkType, timestampNanoseconds: timestamp,
                       wireLength: wireLength, location: location)
        guard summary.packets % OfflineImport.packetsPerBatch == 0 else { return true }
        return commit(engine.takeBatch(now: latest))
    }

    /// Stages the record in the writer's gather buffer, writing the buffer out when it is full:
    /// its bytes are copied once, and the buffer goes to the hashing stage as it is. A failed
    /// write stops the import before the batch that points into it commits.
    private mutating func copy(_ network: UnsafeRawBufferPointer, timestampNanoseconds: Int64) throws(CaptureWriteError) -> CaptureLocation {
        if let record = try writer.stage(network, timestampNanoseconds: timestampNanoseconds) { return record.location }
        try writer.writeStaged(at: Date(nanosecondsSinceEpoch: timestampNanoseconds))
        // An empty buffer takes any record (it grows for a large one).
        return try writer.stage(network, timestampNanoseconds: timestampNanoseconds)?.location ?? .notCaptured
    }

    mutating func finish() throws(OfflineImport.ImportError) {
        if let failure { throw failure }
        do {
            try writer.writeStaged(at: Date(nanosecondsSinceEpoch: latest))
            try writer.close(at: Date(nanosecondsSinceEpoch: latest))
        } catch { throw .captureFiles(error) }
        _ = commit(engine.finishAll())
        summary.undecodable = engine.statistics.undecodable
        if let failure { throw failure }
    }

    private mutating func commit(_ batch: HistoryBatch) -> Bool {
        do { try writer.writeStaged(at: Date(nanosecondsSinceEpoch: latest)) } catch {
            failure = .captureFiles(error)
            return false
        }
        let outcome = commitPath.commit(batch) { _ in false }
        summary.captureFiles += outcome.opened.count
        switch outcome.stoppedAt {
        case .flush(let error)?: failure = .captureFiles(error)
        case .recordFile(_, let error)?, .sealFile(_, let error)?, .batch(let error)?: failure = .history(error)
        case nil: break
        }
        guard let rows = outcome.rows else { return outcome.stoppedAt == nil }
        summary.flows += batch.flows.filter { $0.rowID == nil }.count
        engine.assign(rows: rows, of: batch)
        return true
    }
}
