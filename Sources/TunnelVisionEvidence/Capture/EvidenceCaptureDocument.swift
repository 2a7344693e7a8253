import Foundation
import TunnelVisionModel
/// capture.json: what capture.pcapng holds and, per flow and per reason, the packets it does
/// not — a capture cannot say what it lacks. Counts come from the rows walked while writing.
public struct EvidenceCaptureDocument: Encodable, Sendable, Hashable {
    public enum SourceStanding: String, Sendable, Hashable, Encodable {
        case read, missing, unreadable
    }

    public struct SourceFile: Encodable, Sendable, Hashable {
        public let sequence: UInt32
        public let standing: SourceStanding
        /// The session's packets that pointed at this file.
        public let packets: Int
        public let written: Int

        public init(sequence: UInt32, standing: SourceStanding, packets: Int, written: Int) {
            self.sequence = sequence
            self.standing = standing
            self.packets = packets
            self.written = written
        }
    }

    public struct OutsideSession: Encodable, Sendable, Hashable {
        public let beforeStart: Int
        public let afterEnd: Int

        public init(beforeStart: Int, afterEnd: Int) {
            self.beforeStart = beforeStart
            self.afterEnd = afterEnd
        }
    }

    public struct FlowPackets: Encodable, Sendable, Hashable {
        public let id: Int64
        public let packets: EvidencePacketTally

        public init(id: Int64, packets: EvidencePacketTally) {
            self.id = id
            self.packets = packets
        }
    }

    /// A passive-tap capture session that overlaps the recording, with libpcap's drop counts for
    /// the whole of it: packets that never reached the tap, so neither row nor bytes.
    public struct PassiveTapDrops: Encodable, Sendable, Hashable {
        public let captureRun: Int64
        public let input: String
        public let startedAt: Instant
        public let endedAt: Instant?
        public let kernelDropped: UInt64
        public let interfaceDropped: UInt64

        /// The field keeps its published name whatever the property is called.
        private enum CodingKeys: String, CodingKey {
            case captureRun = "captureSession", input, startedAt, endedAt, kernelDropped, interfaceDropped
        }

        public init(_ session: CaptureRun) {
            captureRun = session.id
            input = session.input
            startedAt = session.startedAt
            endedAt = session.endedAt
            kernelDropped = session.tapDrops?.kernel ?? 0
            interfaceDropped = session.tapDrops?.interface ?? 0
        }
    }

    public static let linkTypeRawIP: UInt16 = 101

    public let format = "tunnelvision.evidence.capture"
    public let formatVersion = 1
    public let sessionID: Int64
    public let file = EvidenceFileName.capture
    public let fileFormat = "pcapng"
    public let linkType = EvidenceCaptureDocument.linkTypeRawIP
    /// Absent when no source file was read.
    public let snaplen: UInt32?
    public let packets: EvidencePacketTally
    public let writtenOutsideSession: OutsideSession
    public let sourceFiles: [SourceFile]
    /// Every flow of flows.json, in its order, also those without packets.
    public let flows: [FlowPackets]
    public let contents: String
    public let packetComments: String
    /// Per reason, packets the tap saw in the minutes of the session's span that have no row;
    /// every reason is written, zero included.
    public private(set) var packetsWithoutRow: [String: Int] = Dictionary(
        uniqueKeysWithValues: PacketLossReason.allCases.map { ($0.name, 0) })
    public let withoutRowContents = EvidenceWording.Note.packetsWithoutRow
    /// Absent unless a passive tap recorded in the session's span.
    public private(set) var passiveTapDrops: [PassiveTapDrops]?
    public private(set) var passiveTapDropsContents: String?
    /// Packets of the session's flows stamped after its end, as the history held them at the
    /// export: neither in capture.pcapng nor in flows.json's counts, which stop at the end.
    public private(set) var packetsAfterEnd = 0
    public let afterEndContents = EvidenceWording.Note.packetsAfterEnd
    /// The chain's links for the source files; absent only in documents made without a history.
    public private(set) var captureChain: EvidenceCaptureChain?

    public init(
        sessionID: Int64, snaplen: UInt32?, packets: EvidencePacketTally, writtenOutsideSession: OutsideSession,
        sourceFiles: [SourceFile], flows: [FlowPackets]
    ) {
        self.sessionID = sessionID
        self.snaplen = snaplen
        self.packets = packets
        self.writtenOutsideSession = writtenOutsideSession
        self.sourceFiles = sourceFiles
        self.flows = flows
        contents = EvidenceWording.Note.captureContents
        packetComments = EvidenceWording.Note.packetComments
    }

    public var standing: EvidenceCaptureStanding {
        EvidenceCaptureStanding(packets, withoutRow: Dictionary(uniqueKeysWithValues: PacketLossReason.allCases.map {
            ($0, packetsWithoutRow[$0.name] ?? 0)
        }))
    }

    /// This document with the history's count of packets without a row for the session's span.
    public func counting(packetsWithoutRow losses: [PacketLossReason: UInt64]) -> EvidenceCaptureDocument {
        var counted = self
        for reason in PacketLossReason.allCases { counted.packetsWithoutRow[reason.name] = Int(clamping: losses[reason] ?? 0) }
        return counted
    }

    /// This document with the passive-tap capture sessions that overlap the session's span.
    public func noting(passiveTapSessions sessions: [CaptureRun]) -> EvidenceCaptureDocument {
        let tapped = sessions.filter { $0.tapDrops != nil }
        guard !tapped.isEmpty else { return self }
        var noted = self
        noted.passiveTapDrops = tapped.map(PassiveTapDrops.init)
        noted.passiveTapDropsContents = EvidenceWording.Note.passiveTapDrops
        return noted
    }

    /// This document with the count of the packets that came after the session's end.
    public func cut(packetsAfterEnd count: Int) -> EvidenceCaptureDocument {
        var cut = self
        cut.packetsAfterEnd = count
        return cut
    }

    /// This document with the chain's links for its source files.
    public func sealed(by chain: EvidenceCaptureChain) -> EvidenceCaptureDocument {
        var sealed = self
        sealed.captureChain = chain
        return sealed
    }

    public func documentFile() throws -> EvidenceFile { try document.file() }

    /// capture.json, written as it is encoded.
    public var document: EvidenceDocument { EvidenceDocument(name: EvidenceFileName.captureDocument, json: self) }

    private enum CodingKeys: String, CodingKey {
        case format, formatVersion, sessionID, file, fileFormat, linkType, snaplen, packets
        case writtenOutsideSession, sourceFiles, flows, contents, packetComments, packetsWithoutRow, withoutRowContents
        case passiveTapDrops, passiveTapDropsContents, packetsAfterEnd, afterEndContents
        case captureChain
    }
}
