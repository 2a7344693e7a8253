import TunnelVisionCaptureFiles
import TunnelVisionModel

/// The one commit path into the history, for the live recorder and the offline import alike:
/// the capture files flushed first, the files opened or closed since recorded next, and only then
/// the batch whose rows point into them — so that no committed row points at bytes the kernel
/// does not hold.
package struct HistoryCommit {
    package let writer: CaptureFileWriter
    package let history: CaptureHistory
    package let captureRun: Int64
    package var tagging: RecordingTagging = .openRecordings
    /// Seals each finished file; nil: files are left unsealed (tests and tools without the daemon's key).
    package var sealer: CaptureSealer?

    /// The offline import's commit path: its flows are never tagged with an open recording.
    package static func untagged(writer: CaptureFileWriter, history: CaptureHistory, captureRun: Int64, sealer: CaptureSealer?) -> Self {
        Self(writer: writer, history: history, captureRun: captureRun, tagging: .none, sealer: sealer)
    }

    /// A step that failed, and what it failed with.
    package enum Failure: Error {
        case flush(CaptureWriteError)
        case recordFile(CaptureFile, any Error)
        case sealFile(CaptureFile, any Error)
        case batch(any Error)
    }

    package struct Outcome {
        /// The files the writer opened and closed since the last commit, recorded or not.
        package var opened: [CaptureFile] = []
        package var closed: [CaptureFile] = []
        /// The history's rows for the batch's flows; nil when nothing was written.
        package var rows: [FlowHandle: Int64]?
        /// The failure the commit stopped at, when `carryOn` said to stop.
        package var stoppedAt: Failure?
    }

    /// `carryOn` hears each failure and says whether the commit goes on: the recorder never stops
    /// capturing for one, an import stops at the first.
    /// `tally` is written in the batch's transaction: kept exactly when the batch is.
    package func commit(_ batch: HistoryBatch, tally: TapTally? = nil, carryOn: (Failure) -> Bool) -> Outcome {
        var outcome = Outcome()
        do { try writer.flush() } catch {
            let failure = Failure.flush(error)
            guard carryOn(failure) else { return stopped(outcome, at: failure) }
        }
        for change in writer.takeChanges() {
            let file: CaptureFile
            switch change {
            case .opened(let opened): file = opened; outcome.opened.append(opened)
            case .closed(let closed, _), .unhashed(let closed, _): file = closed; outcome.closed.append(closed)
            }
            do { try history.recordCaptureFile(file) } catch {
                let failure = Failure.recordFile(file, error)
                guard carryOn(failure) else { return stopped(outcome, at: failure) }
            }
            if case .closed(let closed, let sha256) = change, let sealer {
                do { try sealer.seal(closed, sha256: sha256, origin: .written) } catch {
                    let failure = Failure.sealFile(closed, error)
                    guard carryOn(failure) else { return stopped(outcome, at: failure) }
                }
            }
            if case .unhashed(let closed, let error) = change, sealer != nil {
                // No digest, so no seal: the chain never vouches for bytes it did not hash.
                let failure = Failure.sealFile(closed, error)
                guard carryOn(failure) else { return stopped(outcome, at: failure) }
            }
        }
        guard !batch.isEmpty else { return outcome }
        do { outcome.rows = try history.write(batch, captureRun: captureRun, tagging: tagging, tally: tally) } catch {
            let failure = Failure.batch(error)
            guard carryOn(failure) else { return stopped(outcome, at: failure) }
        }
        return outcome
    }

    private func stopped(_ outcome: Outcome, at failure: Failure) -> Outcome {
        var outcome = outcome
        outcome.stoppedAt = failure
        return outcome
    }
}
