import Foundation
import TunnelVisionModel
import TunnelVisionRelay
import TunnelVisionStore

/// What the open recording asks the relay to present, read from the history when a connection
/// arrives (issue 13): the database is the message, as for tagging. It has its own connection,
/// so that the relay's thread never waits on the recorder's commits for a read.
public final class RecordingLookup: Sendable {
    private let history: FlowStore

    public init(databasePath: String) throws(HistoryError) {
        history = try FlowStore(path: databasePath)
    }

    /// Nil when the history does not answer: a leaf the recording did not ask for would be false evidence.
    /// The recording is the one of the phone at CLIENT (issue 14), by the rule tagging follows.
    func presentation(client: IPAddress) -> RecordingPresentation? {
        let open: AuditSession?
        do { open = try history.openAuditSession(client: client) } catch { return nil }
        guard let session = open else { return .installedAuthority }
        return RecordingPresentation(mode: session.inspection.mode, sessionID: session.id, startedAt: session.startedAt)
    }

    /// Once per recording at most: the store keeps the first fingerprint.
    func recordIssuer(of leaf: PresentedLeaf, sessionID: Int64?) {
        // A mirrored leaf's issuer is the relay's run's, never the recording's.
        guard leaf.defect == .untrustedIssuer, !leaf.mirrorsUpstream, let sessionID else { return }
        try? history.recordValidationIssuer(sessionID: sessionID, fingerprint: leaf.issuerFingerprint)
    }
}
