import TunnelVisionEvidence
import TunnelVisionExport

/// What an export says while it works and when it is done.
extension Wording {
    static func exportStep(_ step: EvidenceExportStep) -> String {
        switch step {
        case .readingHistory: "Reading the session out of the history…"
        case .writingCapture: "Copying its packets out of the capture files…"
        case .drawingReport: "Drawing the report…"
        case .compressing(let fraction): "Compressing… \(Int((fraction * 100).rounded()))%"
        case .finished: "Done."
        }
    }

    /// "Exported session 7 to /home/x/tunnelvision-evidence-session-7-20261001-093500.zip (1.2 MB):
    /// 10 flows, 5 findings; capture: all 48 packets."
    static func exported(_ result: EvidenceExportResult, sessionID: Int64, skippedTimestamp: String? = nil) -> String {
        "Exported session \(sessionID) to \(result.url.path) (\(Formatting.bytes(result.byteCount))): "
            + "\(plural(result.flowCount, "flow")), \(plural(result.findingCount, "finding")); capture: \(capture(result.captureStanding)); "
            + signature(keyID: result.signatureKeyID) + timestamp(result.timestamp, skipped: skippedTimestamp) + "."
    }

    static func capture(_ standing: EvidenceCaptureStanding) -> String {
        switch standing {
        case .nothingRecorded:
            return "no packets were recorded"
        case .complete(let packets):
            return "all \(plural(packets, "packet"))"
        case .incomplete(let written, let recorded, let missing, let withoutRow):
            let reasons = missing.map { "\(Formatting.count($0.count)) \(phrase(for: $0.reason))" }
                + withoutRow.map { "\($0.reason.countIsLowerBound ? "at least " : "")\(Formatting.count($0.count)) crossed without a row (\($0.reason.name))" }
            return "\(Formatting.count(written)) of \(plural(recorded, "packet")) written, " + reasons.joined(separator: ", ")
        }
    }

    private static func phrase(for reason: EvidenceMissingReason) -> String {
        switch reason {
        case .notCaptured: "never captured"
        case .captureFileMissing: "in capture files no longer on disk"
        case .recordUnreadable: "unreadable in their files"
        }
    }
}
