import Foundation
import TunnelVisionModel
import TunnelVisionRelay
import TunnelVisionStore

/// What the open recording asks the relay to present, read from the history when a connection
/// arrives (a certificate validation run): the database is the message, as for tagging. It has its own connection,
/// so that the relay never waits on the recorder's commits for a read; the relay asks it from a
/// thread beside its loop, so a history held by another writer delays only the connection that asked.
public final class RecordingLookup: Sendable {
    private let history: History

    public init(databasePath: String) throws(HistoryError) {
        history = try History(path: databasePath)
    }

    /// Nil when the history does not answer: a leaf the recording did not ask for would be false evidence.
    /// The recording is the one of the phone at CLIENT, by the rule tagging follows.
    func presentation(client: IPAddress) -> RequestedLeaf? {
        let open: Recording?
        do { open = try history.openRecording(client: client) } catch { return nil }
        guard let session = open else { return .installedAuthority }
        return RequestedLeaf(
            mode: session.inspection.mode, sessionID: session.id, startedAt: session.startedAt.date,
            keepsRequestPaths: session.inspection.keepsRequestPaths)
    }

    /// Once per recording at most: the store keeps the first fingerprint. Written on a queue of its
    /// own: called on the relay's loop, which must not wait for a history another writer holds.
    func recordIssuer(of leaf: ShownLeaf, sessionID: Int64?) {
        // A mirrored leaf's issuer is the relay's run's, never the recording's.
        guard leaf.defect == .untrustedIssuer, !leaf.mirrorsUpstream, let sessionID else { return }
        let history = history, fingerprint = leaf.issuerFingerprint
        writes.async { try? history.recordValidationIssuer(sessionID: sessionID, fingerprint: fingerprint) }
    }

    private let writes = DispatchQueue(label: "relay-recording-writes")
}
