import TunnelVisionEvidence

/// The counts capture.json reports, gathered from the rows walked while writing.
struct EvidenceCaptureTally {
    private let bundle: EvidenceBundle
    private let startMicroseconds: UInt64
    private let endMicroseconds: UInt64
    private var perFlow: [Int64: EvidencePacketTally] = [:]
    private var sources: [EvidenceCaptureDocument.SourceFile] = []
    private var beforeStart = 0
    private var afterEnd = 0

    init(bundle: EvidenceBundle) {
        self.bundle = bundle
        startMicroseconds = UInt64(max(bundle.sessionStart.nanosecondsSinceEpoch, 0) / 1_000)
        endMicroseconds = UInt64(max(bundle.sessionEnd.nanosecondsSinceEpoch, 0) / 1_000)
    }

    /// "flow=12 findings=F1,F3", or "flow=12" for a flow that proves nothing.
    static func comment(flowID: Int64, bundle: EvidenceBundle) -> String {
        let findings = bundle.identifiers.ids(ofFlow: flowID)
        return findings.isEmpty ? "flow=\(flowID)" : "flow=\(flowID) findings=\(findings.joined(separator: ","))"
    }

    mutating func add(_ count: Int, without reason: EvidenceMissingReason, flowID: Int64) {
        perFlow[flowID, default: EvidencePacketTally()].add(count, without: reason)
    }

    mutating func addWritten(flowID: Int64, microseconds: UInt64) {
        perFlow[flowID, default: EvidencePacketTally()].addWritten()
        if microseconds < startMicroseconds { beforeStart += 1 }
        if microseconds > endMicroseconds { afterEnd += 1 }
    }

    mutating func source(_ file: EvidenceCaptureDocument.SourceFile) {
        sources.append(file)
    }

    /// A file that gives no bytes: every packet that pointed at it has a reason instead.
    mutating func lose(_ counts: [(flowID: Int64, count: Int)], of sequence: UInt32, standing: EvidenceCaptureDocument.SourceStanding) {
        let reason: EvidenceMissingReason = standing == .missing ? .captureFileMissing : .recordUnreadable
        for (flowID, count) in counts { add(count, without: reason, flowID: flowID) }
        sources.append(.init(sequence: sequence, standing: standing, packets: counts.reduce(0) { $0 + $1.count }, written: 0))
    }

    func document(snaplen: UInt32?) -> EvidenceCaptureDocument {
        var total = EvidencePacketTally()
        let flows = bundle.flowIDs.map { id in
            let packets = perFlow[id] ?? EvidencePacketTally()
            total.addWritten(packets.written)
            for reason in EvidenceMissingReason.allCases { total.add(packets.count(reason), without: reason) }
            return EvidenceCaptureDocument.FlowPackets(id: id, packets: packets)
        }
        return EvidenceCaptureDocument(
            sessionID: bundle.sessionID, snaplen: snaplen, packets: total,
            writtenOutsideSession: .init(beforeStart: beforeStart, afterEnd: afterEnd),
            sourceFiles: sources, flows: flows)
    }
}
