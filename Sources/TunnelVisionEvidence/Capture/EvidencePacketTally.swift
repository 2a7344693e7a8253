import TunnelVisionModel
/// Why the history holds a packet whose bytes are not in the capture.
public enum EvidenceMissingReason: String, Sendable, Hashable, CaseIterable, Encodable {
    /// Never written to a capture file: capture was off, or its writer failed.
    case notCaptured
    /// Its file is no longer on the disk.
    case captureFileMissing
    /// Its file is there but the record could not be read back.
    case recordUnreadable
}

/// Packets by what became of them. `recorded` is always the sum of the rest: a packet is
/// written or has a reason not to be.
public struct EvidencePacketTally: Sendable, Hashable, Encodable {
    public private(set) var written = 0
    public private(set) var withoutBytes: [EvidenceMissingReason: Int] = [:]

    public init() {}

    public init(written: Int, withoutBytes: [EvidenceMissingReason: Int]) {
        self.written = written
        self.withoutBytes = withoutBytes.filter { $0.value != 0 }
    }

    public var recorded: Int { written + withoutBytes.values.reduce(0, +) }

    public func count(_ reason: EvidenceMissingReason) -> Int { withoutBytes[reason] ?? 0 }

    public mutating func addWritten(_ count: Int = 1) { written += count }

    public mutating func add(_ count: Int, without reason: EvidenceMissingReason) {
        guard count != 0 else { return }
        withoutBytes[reason, default: 0] += count
    }

    private enum CodingKeys: String, CodingKey { case recorded, written, withoutBytes }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(recorded, forKey: .recorded)
        try container.encode(written, forKey: .written)
        var reasons = container.nestedContainer(keyedBy: ReasonKey.self, forKey: .withoutBytes)
        for reason in EvidenceMissingReason.allCases {
            try reasons.encode(count(reason), forKey: ReasonKey(reason))
        }
    }

    private struct ReasonKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ reason: EvidenceMissingReason) { stringValue = reason.rawValue }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

public struct EvidenceMissingPackets: Sendable, Hashable {
    public let reason: EvidenceMissingReason
    public let count: Int
}

/// Which of three things holds of a bundle's capture: the one sentence a person is told first.
public enum EvidenceCaptureStanding: Sendable, Hashable {
    case nothingRecorded
    case complete(packets: Int)
    /// `withoutRow`: packets that crossed the tap and have no row at all.
    case incomplete(written: Int, recorded: Int, missing: [EvidenceMissingPackets], withoutRow: [EvidencePacketLoss])

    /// Only the reasons that have packets are listed, in a fixed order. A packet without a row
    /// makes the capture incomplete however whole the recorded ones are.
    public init(_ tally: EvidencePacketTally, withoutRow losses: [PacketLossReason: Int] = [:]) {
        let withoutRow = PacketLossReason.allCases.compactMap { reason in
            (losses[reason] ?? 0) > 0 ? EvidencePacketLoss(reason: reason, count: losses[reason] ?? 0) : nil
        }
        if tally.recorded == 0, withoutRow.isEmpty {
            self = .nothingRecorded
        } else if tally.written == tally.recorded, withoutRow.isEmpty {
            self = .complete(packets: tally.written)
        } else {
            self = .incomplete(
                written: tally.written, recorded: tally.recorded,
                missing: EvidenceMissingReason.allCases.compactMap { reason in
                    let count = tally.count(reason)
                    return count > 0 ? EvidenceMissingPackets(reason: reason, count: count) : nil
                },
                withoutRow: withoutRow)
        }
    }
}

/// Packets that crossed the tap in the minutes the session spans and that the history has no row
/// for: in no connection, and so in no capture.
public struct EvidencePacketLoss: Sendable, Hashable {
    public let reason: PacketLossReason
    public let count: Int

    public init(reason: PacketLossReason, count: Int) {
        self.reason = reason
        self.count = count
    }
}
