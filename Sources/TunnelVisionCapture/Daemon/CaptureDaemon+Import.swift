import Foundation
import TunnelVisionModel

/// The history as the offline import writes to it.
private struct ImportHistory: HistoryWriting {
    let history: CaptureHistory
    func write(_ batch: HistoryBatch, captureSession: Int64) throws -> [FlowHandle: Int64] {
        try history.write(batch, captureSession: captureSession)
    }
}

extension CaptureFileWriter: CapturedPacketWriting {}

extension CaptureDaemon {
    /// `--read FILE`: the file's packets cross the same engine into the same history, copied
    /// into the capture files, as one capture session of their own. A daemon capturing live
    /// beside it is left alone: no session of its is closed, no setting or heartbeat replaced.
    func runImport(path: String, clock: PacketClock) throws(DaemonStartError) -> OfflineImport.Summary {
        let session: CaptureSession
        var writer: CaptureFileWriter?
        do { (session, writer) = try beginCapture(at: Date(nanosecondsSinceEpoch: clock.now())) } catch {
            throw Self.startError(error)
        }
        var target = ImportHistory(history: history)
        let outcome = Result { () throws(OfflineImport.ImportError) -> OfflineImport.Summary in
            try OfflineImport.run(path: path, history: &target, captureSession: session.id, packets: &writer,
                                  configuration: configuration.flowEngine)
        }
        let end = Date(nanosecondsSinceEpoch: clock.now())
        try? writer?.close(at: end)
        for change in writer?.takeChanges() ?? [] {
            switch change {
            case .opened(let file), .closed(let file): try? history.recordCaptureFile(file)
            }
        }
        try? history.endCaptureSession(id: session.id, at: end)
        switch outcome {
        case .success(let summary): return summary
        case .failure(let error): throw .inputUnavailable("\(configuration.input.label): \(error)")
        }
    }
}
