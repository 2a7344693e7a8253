import Foundation
import TunnelVisionStore

/// A recording a gateway of an older history schema published, brought to this tool's schema.
/// Its rows go into a history of the version they were written under, and the store's own
/// forward steps move that history on: the very steps that moved the gateway's history, so a
/// renamed or added column (and whatever a step computed for it) has one account, not a second
/// copy here that could drift from it.
enum RecordingForward {
    /// The extract as this tool's history holds it. One of this version is answered as it is;
    /// one of a newer gateway is too, and the history refuses the column it does not know.
    static func current(_ extract: RecordingExtract, scratchFolder folder: String) throws(ArchiveError) -> RecordingExtract {
        let version = History.currentSchemaVersion
        guard extract.historySchema < version else { return extract }
        let path = folder + "/schema-\(extract.historySchema)-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        do {
            _ = try History(path: path, migratingTo: extract.historySchema)
        } catch {
            throw .history("a history of schema \(extract.historySchema) could not be made: \(error)")
        }
        _ = try RebuiltHistory.writeRows([extract], intoHistoryAt: path)
        do {
            _ = try History(path: path)
        } catch {
            throw .history("a recording of history schema \(extract.historySchema) could not be brought to schema \(version): \(error)")
        }
        let moved = try GatewayHistory(path: path).extract(recordingID: extract.localID, publishKeyLogs: true)
        // The project stays the archive's (its id is how recordings of one project find each other).
        return RecordingExtract(
            recording: moved.recording, project: extract.project, allowlist: extract.allowlist, markers: moved.markers,
            flows: moved.flows, relays: moved.relays, requests: moved.requests, historySchema: version)
    }
}
