import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionDatapath
import TunnelVisionImport
import TunnelVisionModel
import TunnelVisionRecorder

extension CaptureDaemon {
    /// `--read FILE`: the file's packets cross the same engine into the same history, copied
    /// into the capture files, as one capture session of their own. A daemon capturing live
    /// beside it is left alone: no session of its is closed, no setting or heartbeat replaced.
    func runImport(path: String, clock: PacketClock) throws(DaemonStartError) -> OfflineImport.Summary {
        let request = OfflineImportRequest(
            capturePath: path, captureDirectory: configuration.captureDirectory,
            clientNetworks: configuration.flowEngine.clientNetworks, rotationBytes: configuration.rotationBytes)
        let sealer: CaptureSealer
        do { sealer = CaptureSealer(key: try CaptureSealKey(besideHistory: configuration.database).loadOrCreate(), history: history) } catch {
            throw .sealKey(error)
        }
        do {
            return try OfflineImport.run(request, into: history, toolVersion: toolVersion, clock: { Date(nanosecondsSinceEpoch: clock.now()) },
                                         sealer: sealer)
        } catch {
            throw .importFailed(error)
        }
    }
}
