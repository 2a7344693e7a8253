import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionEvidence
import TunnelVisionModel
import TunnelVisionStore

/// capture.pcapng and what capture.json says of it.
public struct EvidenceCapture: Sendable, Hashable {
    public let document: EvidenceCaptureDocument
    /// capture.pcapng: its size and SHA-256, taken while it was written.
    public let entry: EvidenceManifest.Entry

    public func documentFile() throws -> EvidenceFile { try document.documentFile() }
}

public enum EvidenceCaptureError: Error, Sendable, Hashable {
    /// The history holds a packet of a flow the bundle does not list: it changed after the flows were read.
    case flowNotInBundle(id: Int64)
    case destinationUnavailable(String)
    case writeFailed(String)
}

/// Slices the rotated .pcap files to the packets of a session's flows — one source file at a
/// time, so that memory is bounded by a file and not by the session — and copies each packet
/// untouched into capture.pcapng with its direction and a comment naming its flow and findings.
public enum EvidenceCaptureWriter {
    /// Reads everything inside the snapshot it is given: one instant of the history.
    public static func write(
        for bundle: EvidenceBundle, from snapshot: HistorySnapshot, captureDirectory: URL?, into folder: URL,
        application: String, tlsKeyLog: [String] = []
    ) throws -> EvidenceCapture {
        try write(
            for: bundle, packetCounts: try snapshot.packetCounts(inAuditSession: bundle.sessionID),
            sources: EvidenceCaptureSources(files: try snapshot.captureFiles(), directory: captureDirectory),
            capturedPackets: { try snapshot.capturedPackets(inAuditSession: bundle.sessionID, fileSequence: $0) },
            into: folder, application: application, tlsKeyLog: tlsKeyLog)
    }

    /// `tlsKeyLog`: the lines written in a Decryption Secrets Block at the start (`--with-keys`);
    /// empty, the capture holds no secrets.
    static func write(
        for bundle: EvidenceBundle, packetCounts: [SessionPacketCount], sources: EvidenceCaptureSources,
        capturedPackets: (UInt32) throws -> [SessionCapturedPacket], into folder: URL, application: String,
        tlsKeyLog: [String] = []
    ) throws -> EvidenceCapture {
        // Every flow the history counts must be one the documents list, before anything is written.
        for count in packetCounts where !bundle.contains(flowID: count.flowID) {
            throw EvidenceCaptureError.flowNotInBundle(id: count.flowID)
        }
        var tally = EvidenceCaptureTally(bundle: bundle)
        var perFile: [UInt32: [(flowID: Int64, count: Int)]] = [:]
        for count in packetCounts {
            if let sequence = count.fileSequence {
                perFile[sequence, default: []].append((count.flowID, count.count))
            } else {
                tally.add(count.count, without: .notCaptured, flowID: count.flowID)
            }
        }
        let opened = perFile.keys.sorted().map { ($0, sources.open(sequence: $0)) }
        let snaplen = opened.compactMap { try? $0.1.get().header.snapshotLength }.max()

        let path = folder.appendingPathComponent(EvidenceFileName.capture).path
        let file: HashedFile
        do { file = try HashedFile(path: path) } catch {
            throw EvidenceCaptureError.destinationUnavailable(path)
        }
        do {
            try file.append(PcapngBlocks.sectionHeader(application: application))
            if !tlsKeyLog.isEmpty, let secrets = PcapngBlocks.decryptionSecrets(tlsKeyLog: Array(tlsKeyLog.map { $0 + "\n" }.joined().utf8)) {
                try file.append(secrets)
            }
            try file.append(PcapngBlocks.interface(linkType: EvidenceCaptureDocument.linkTypeRawIP, snaplen: snaplen ?? 0))
            for (sequence, source) in opened {
                switch source {
                case .success(let reader):
                    try copy(try capturedPackets(sequence), of: sequence, from: reader, to: file, bundle: bundle, tally: &tally)
                case .failure(let standing):
                    tally.lose(perFile[sequence] ?? [], of: sequence, standing: standing)
                }
            }
            let entry = try file.finish(name: EvidenceFileName.capture)
            return EvidenceCapture(document: tally.document(snaplen: snaplen), entry: entry)
        } catch let failure as HashedFile.Failure {
            throw EvidenceCaptureError.writeFailed("\(failure)")
        }
    }

    private static func copy(
        _ packets: [SessionCapturedPacket], of sequence: UInt32, from reader: CaptureFileReader, to file: HashedFile,
        bundle: EvidenceBundle, tally: inout EvidenceCaptureTally
    ) throws {
        var comments: [Int64: [UInt8]] = [:]
        var written = 0
        for packet in packets {
            guard bundle.contains(flowID: packet.flowID) else { throw EvidenceCaptureError.flowNotInBundle(id: packet.flowID) }
            guard let record = try? reader.record(at: packet.fileOffset) else {
                tally.add(1, without: .recordUnreadable, flowID: packet.flowID)
                continue
            }
            let comment = comments[packet.flowID] ?? Array(EvidenceCaptureTally.comment(flowID: packet.flowID, bundle: bundle).utf8)
            comments[packet.flowID] = comment
            let microseconds = UInt64(max(record.timestampNanoseconds, 0) / 1_000)
            try file.append { buffer in
                PcapngBlocks.appendEnhancedPacket(
                    to: &buffer, microseconds: microseconds, packet: record.bytes, originalLength: record.originalLength,
                    direction: packet.direction, comment: comment)
            }
            tally.addWritten(flowID: packet.flowID, microseconds: microseconds)
            written += 1
        }
        tally.source(.init(sequence: sequence, standing: .read, packets: packets.count, written: written))
    }
}
