import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionEvidence
import TunnelVisionModel
import TunnelVisionStore

public enum EvidenceCaptureError: Error, Sendable, Hashable {
    /// The history holds a packet of a flow the bundle does not list: it changed after the flows were read.
    case flowNotInBundle(id: Int64)
    /// A source file is there but cannot be opened or read (permissions, I/O; errno).
    case sourceUnreadable(path: String, errno: Int32)
    /// A source path names a FIFO, a device or a directory: it was not opened.
    case sourceNotRegularFile(path: String)
    /// A source file or its link does not agree with the chain over the capture files.
    case notAsSealed(path: String, CaptureSealMismatch)
    case destinationUnavailable(String)
    case writeFailed(String)
}

/// Slices the rotated .pcap files to the packets of a session's flows — one source file at a
/// time, so that memory is bounded by a file and not by the session — and copies each packet
/// untouched into capture.pcapng with its direction and a comment naming its flow and findings.
enum EvidenceCaptureWriter {
    /// Reads everything inside the snapshot it is given: one instant of the history.
    /// `later`: the packets after the session's end, left out (the cut), and counted.
    static func write(
        for bundle: EvidenceBundle, from snapshot: HistorySnapshot, captureDirectory: URL?, sealKey: [UInt8]?,
        into archive: EvidenceArchive, application: String, tlsKeyLog: [String] = [], cutting later: LaterPackets? = nil
    ) throws -> EvidenceCaptureDocument {
        let files = try snapshot.captureFiles()
        let seals = EvidenceCaptureSeals(files: files, seals: try snapshot.captureSeals(), publicKey: sealKey)
        var chain: EvidenceCaptureChain?
        var counts = try snapshot.packetCounts(inRecording: bundle.sessionID)
        if let later { counts = cut(counts, less: later.perFile) }
        let end = later?.end.nanosecondsSinceEpoch ?? .max
        let document = try write(
            for: bundle, packetCounts: counts,
            sources: EvidenceCaptureSources(files: files, directory: captureDirectory),
            capturedPackets: {
                try snapshot.capturedPackets(inRecording: bundle.sessionID, fileSequence: $0).filter { $0.timestampNanoseconds <= end }
            },
            into: archive, application: application, tlsKeyLog: tlsKeyLog,
            beforeCopying: { sequences, sources in chain = try seals.check(sequences: sequences, sources: sources) }
        ).cut(packetsAfterEnd: later?.count ?? 0)
        return chain.map(document.sealed(by:)) ?? document
    }

    /// The counts by flow and file less those of the later packets.
    static func cut(_ counts: [SessionPacketCount], less later: [SessionPacketCount]) -> [SessionPacketCount] {
        struct Place: Hashable { let flowID: Int64, file: UInt32? }
        let cut = Dictionary(later.map { (Place(flowID: $0.flowID, file: $0.fileSequence), $0.count) }, uniquingKeysWith: +)
        return counts.compactMap { count in
            let left = count.count - (cut[Place(flowID: count.flowID, file: count.fileSequence)] ?? 0)
            return left > 0 ? SessionPacketCount(flowID: count.flowID, fileSequence: count.fileSequence, count: left) : nil
        }
    }

    /// `tlsKeyLog`: the lines written in a Decryption Secrets Block at the start (`--with-keys`);
    /// empty, the capture holds no secrets. capture.pcapng goes into `archive` as it is made.
    static func write(
        for bundle: EvidenceBundle, packetCounts: [SessionPacketCount], sources: EvidenceCaptureSources,
        capturedPackets: (UInt32) throws -> [SessionCapturedPacket], into archive: EvidenceArchive, application: String,
        tlsKeyLog: [String] = [], beforeCopying: ([UInt32], EvidenceCaptureSources) throws -> Void = { _, _ in }
    ) throws -> EvidenceCaptureDocument {
        // Every flow the history counts must be one the documents list, before anything is written.
        for count in packetCounts where !bundle.contains(flowID: count.flowID) {
            throw EvidenceCaptureError.flowNotInBundle(id: count.flowID)
        }
        var tally = EvidenceCaptureTally(bundle: bundle)
        var perFile: [UInt32: [(flowID: Int64, count: Int)]] = [:]
        var comments: [Int64: [UInt8]] = [:]
        for count in packetCounts {
            if let sequence = count.fileSequence {
                perFile[sequence, default: []].append((count.flowID, count.count))
                if comments[count.flowID] == nil {
                    comments[count.flowID] = Array(EvidenceCaptureTally.comment(flowID: count.flowID, bundle: bundle).utf8)
                }
            } else {
                tally.add(count.count, without: .notCaptured, flowID: count.flowID)
            }
        }
        // The chain is checked before a byte of any source file is copied.
        try beforeCopying(perFile.keys.sorted(), sources)
        let opened = try perFile.keys.sorted().map { ($0, try sources.open(sequence: $0)) }
        let snaplen = opened.compactMap { try? $0.1.get().header.snapshotLength }.max()
        let secrets = tlsKeyLog.isEmpty ? nil : PcapngBlocks.decryptionSecrets(tlsKeyLog: Array(tlsKeyLog.map { $0 + "\n" }.joined().utf8))

        // Whether the capture could pass 4 GiB, from above: every source byte, and per packet
        // a block's framing and its comment.
        var bound = UInt64(secrets?.count ?? 0) + 4_096
        for (sequence, source) in opened {
            guard case .success(let reader) = source else { continue }
            bound += reader.byteCount
            for (flowID, count) in perFile[sequence] ?? [] {
                bound += UInt64(count) * UInt64(64 + (comments[flowID]?.count ?? 0))
            }
        }
        return try archive.add(EvidenceFileName.capture, mayPass4GiB: bound >= 1 << 31) { file in
            try file.write(PcapngBlocks.sectionHeader(application: application))
            if let secrets { try file.write(secrets) }
            try file.write(PcapngBlocks.interface(linkType: EvidenceCaptureDocument.linkTypeRawIP, snaplen: snaplen ?? 0))
            for (sequence, source) in opened {
                switch source {
                case .success(let reader):
                    try copy(try capturedPackets(sequence), of: sequence, from: reader, to: file, comments: comments, bundle: bundle, tally: &tally)
                case .failure(let standing):
                    tally.lose(perFile[sequence] ?? [], of: sequence, standing: standing)
                }
            }
            return tally.document(snaplen: snaplen)
        }
    }

    /// One pass over the file, in the order of offsets, each record copied from the read window
    /// straight into the archive's buffer.
    private static func copy(
        _ packets: [SessionCapturedPacket], of sequence: UInt32, from reader: CaptureFileReader, to file: ZipMemberOutput,
        comments: [Int64: [UInt8]], bundle: EvidenceBundle, tally: inout EvidenceCaptureTally
    ) throws {
        var written = 0
        for packet in packets {
            // Comments were made only for the flows of the bundle, checked above.
            guard let comment = comments[packet.flowID] else {
                throw EvidenceCaptureError.flowNotInBundle(id: packet.flowID)
            }
            let copied: Bool
            do {
                copied = try reader.withRecord(at: packet.fileOffset) { header, bytes in
                    // A record that is not the one its row describes is not that packet's evidence.
                    guard header.matches(timestampNanoseconds: packet.timestampNanoseconds, wireLength: packet.wireLength) else {
                        return false
                    }
                    let microseconds = UInt64(max(header.timestampNanoseconds, 0) / 1_000)
                    try file.append { buffer in
                        PcapngBlocks.appendEnhancedPacket(
                            to: &buffer, microseconds: microseconds, packet: bytes, originalLength: header.originalLength,
                            direction: packet.direction, comment: comment)
                    }
                    tally.addWritten(flowID: packet.flowID, microseconds: microseconds)
                    return true
                }
            } catch let error as CaptureReadError {
                if case .unreadable(let path, let errno) = error { throw EvidenceCaptureError.sourceUnreadable(path: path, errno: errno) }
                copied = false
            }
            if copied { written += 1 } else { tally.add(1, without: .recordUnreadable, flowID: packet.flowID) }
        }
        tally.source(.init(sequence: sequence, standing: .read, packets: packets.count, written: written))
    }
}
