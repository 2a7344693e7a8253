import CaptureTestSupport
import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionCaptureFiles

extension CaptureFileWriter {
    func write(_ packet: [UInt8], at nanoseconds: Int64) throws -> CaptureLocation {
        try packet.withUnsafeBytes { try write($0, timestampNanoseconds: nanoseconds) }
    }
}

private let noon: Int64 = 1_764_504_000_123_456_789  // 2025-11-30 12:00:00.123456789 UTC

/// Alternating IPv4/UDP and IPv6/TCP packets whose payload bytes say which one they are.
private func packets(_ count: Int, payloadBytes: Int = 100) -> [[UInt8]] {
    (0..<count).map { index -> [UInt8] in
        let payload = [UInt8](repeating: UInt8(index % 256), count: payloadBytes)
        let last = UInt8(index % 250)
        if index.isMultiple(of: 2) {
            return TestPackets.udpV4(source: [10, 77, 0, 2], destination: [192, 0, 2, last], sourcePort: 40_000, destinationPort: 53, payload: payload)
        }
        return TestPackets.tcpV6(sourceLast: 2, destinationLast: last, sourcePort: 50_000, destinationPort: 443, payload: payload)
    }
}

@Suite struct CaptureFileWriterTests {
    @Test func packetsReadBackByTheirLocationsAndTsharkAgrees() throws {
        let directory = try TemporaryDirectory()
        let writer = try CaptureFileWriter(configuration: .init(directory: directory.path), highestSequenceInHistory: 0)
        let sent = packets(6)
        var locations: [CaptureLocation] = []
        for (index, packet) in sent.enumerated() {
            locations.append(try writer.write(packet, at: noon + Int64(index) * 1_000_000))
        }
        try writer.flush()

        #expect(locations.map(\.fileSequence) == Array(repeating: 1, count: 6))
        #expect(locations.first?.offset == 24)
        #expect(locations.allSatisfy { $0.isCaptured })
        let names = directory.names
        #expect(names == ["tunnelvision-000001-20251130-120000.pcap"])

        let reader = try CaptureFileReader(path: directory.file(names[0]))
        for (index, location) in locations.enumerated().reversed() {
            let record = try reader.record(at: location.offset)
            #expect(record.bytes == sent[index])
            #expect(record.originalLength == UInt32(sent[index].count))
            #expect(record.timestampNanoseconds == (noon + Int64(index) * 1_000_000) / 1_000 * 1_000)
        }

        let info = try run("capinfos", ["-T", "-r", "-c", "-E", "-l", directory.file(names[0])])
        #expect(info.status == 0)
        #expect(info.output.split(separator: "\t").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ==
                [directory.file(names[0]), "rawip", "262144", "n/a", "n/a", "6"])
        let frames = try tsharkFields(directory.file(names[0]), ["frame.len", "ip.src", "ipv6.dst", "udp.dstport", "tcp.dstport", "frame.time_epoch"])
        #expect(frames.count == 6)
        #expect(frames.map { $0[0] } == sent.map { String($0.count) })
        #expect(frames[0][1] == "10.77.0.2" && frames[0][3] == "53")
        #expect(frames[1][2] == "fd88::1" && frames[1][4] == "443")
        #expect(frames[0][5].hasPrefix("1764504000.123456"))
    }

    @Test func theSnapshotLengthCutsPacketsAndAChangeStartsANewFile() throws {
        let directory = try TemporaryDirectory()
        let writer = try CaptureFileWriter(configuration: .init(directory: directory.path, snapshotLength: 64), highestSequenceInHistory: 0)
        let big = packets(1, payloadBytes: 400)[0]
        let first = try writer.write(big, at: noon)
        writer.setSnapshotLength(1_000)
        let second = try writer.write(big, at: noon + 1_000_000_000)
        try writer.flush()

        #expect(first.fileSequence == 1 && second.fileSequence == 2)
        let cut = try CaptureFileReader(path: directory.file(directory.names[0])).record(at: first.offset)
        #expect(cut.bytes == Array(big.prefix(64)))
        #expect(cut.originalLength == UInt32(big.count))
        let whole = try CaptureFileReader(path: directory.file(directory.names[1])).record(at: second.offset)
        #expect(whole.bytes == big)
        let frames = try tsharkFields(directory.file(directory.names[0]), ["frame.len", "frame.cap_len"])
        #expect(frames == [[String(big.count), "64"]])
    }

    @Test func filesRotateAtTheSizeLimitAndReportEachChange() throws {
        let directory = try TemporaryDirectory()
        // Each record is 16 + 128 bytes (IPv4, UDP, 100 bytes): a 1000-byte limit fits six records after the header.
        let writer = try CaptureFileWriter(configuration: .init(directory: directory.path, rotationBytes: 1_000), highestSequenceInHistory: 0)
        let sent = Array(repeating: packets(1)[0], count: 14)
        let locations = try sent.enumerated().map { try writer.write($1, at: noon + Int64($0)) }
        try writer.close(at: Date(nanosecondsSinceEpoch: noon + 1_000))

        #expect(locations.map(\.fileSequence) == [1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3])
        #expect(directory.names.count == 3)
        let changes = writer.takeChanges()
        #expect(changes.count == 6)
        let closed = changes.compactMap { if case .closed(let file, _) = $0 { file } else { nil } }
        // The digest taken while writing is the digest of what is on disk.
        for case .closed(let file, let sha256) in changes {
            let read = try CaptureFileDigest.sha256(ofFileAt: file.path)
            #expect(read.bytes == file.bytes && read.sha256 == sha256)
        }
        #expect(closed.map(\.sequence) == [1, 2, 3])
        let fullFile: UInt64 = 24 + 6 * 144
        #expect(closed.map(\.bytes) == [fullFile, fullFile, 24 + 2 * 144])
        #expect(closed.allSatisfy { $0.bytes <= 1_000 })
        for file in closed {
            let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? UInt64
            #expect(size == file.bytes)
        }
        for (index, location) in locations.enumerated() {
            let path = closed[Int(location.fileSequence) - 1].path
            #expect(try CaptureFileReader(path: path).record(at: location.offset).bytes == sent[index])
        }
        #expect(writer.takeChanges().isEmpty)
    }

    @Test func aPacketLargerThanTheLimitStillGetsAFileOfItsOwn() throws {
        let directory = try TemporaryDirectory()
        let writer = try CaptureFileWriter(configuration: .init(directory: directory.path, rotationBytes: 100), highestSequenceInHistory: 0)
        let sent = packets(2, payloadBytes: 300)
        let locations = try sent.map { try writer.write($0, at: noon) }
        #expect(locations.map(\.fileSequence) == [1, 2])
        #expect(locations.map(\.offset) == [24, 24])
    }

    @Test(arguments: [
        // (files already in the directory, highest sequence in the history, first sequence issued)
        ([String](), UInt32(0), UInt32(1)),
        ([], 41, 42),
        (["tunnelvision-000007-20250101-000000.pcap"], 5, 8),
        (["tunnelvision-000007-20250101-000000.pcap"], 12, 13),
        (["tunnelvision-1234567-20250101-000000.pcap", "notes.txt", "tunnelvision-x-20250101-000000.pcap"], 0, 1_234_568),
    ])
    func sequencesStartAboveEverythingIssuedBefore(existing: [String], history: UInt32, expected: UInt32) throws {
        let directory = try TemporaryDirectory()
        for name in existing { directory.create(name, bytes: []) }
        let writer = try CaptureFileWriter(configuration: .init(directory: directory.path), highestSequenceInHistory: history)
        #expect(try writer.write(packets(1)[0], at: noon).fileSequence == expected)
    }

    @Test func sequencesNeverWrap() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: CaptureWriteError.sequencesExhausted) {
            try CaptureFileWriter(configuration: .init(directory: directory.path), highestSequenceInHistory: .max)
        }
        let writer = try CaptureFileWriter(configuration: .init(directory: directory.path, snapshotLength: 10), highestSequenceInHistory: .max - 1)
        #expect(try writer.write(packets(1)[0], at: noon).fileSequence == .max)
        writer.setSnapshotLength(20)
        #expect(throws: CaptureWriteError.sequencesExhausted) { try writer.write(packets(1)[0], at: noon) }
    }

    @Test func aTimeBeforeTheEpochIsWrittenAsTheEpoch() throws {
        #expect(PcapFormat.recordTimestamp(nanoseconds: -5) == (0, 0))
        #expect(PcapFormat.recordTimestamp(nanoseconds: 1_500_000_999) == (1, 500_000))
    }

    /// An import's writer gathers records and writes them a buffer at a time; the files
    /// and the locations are the same byte for byte as one write per record.
    @Test func aBufferedWriterWritesTheSameFilesAndLocations() throws {
        let sent = packets(40)
        var results: [(locations: [CaptureLocation], files: [String: Data])] = []
        for buffer in [0, 700] {
            let directory = try TemporaryDirectory()
            let writer = try CaptureFileWriter(
                configuration: .init(directory: directory.path, rotationBytes: 2_000, bufferBytes: buffer), highestSequenceInHistory: 0)
            var locations: [CaptureLocation] = []
            for (index, packet) in sent.enumerated() {
                locations.append(try writer.write(packet, at: noon + Int64(index) * 1_000_000))
                if index == 20 { try writer.flush() }
            }
            try writer.close(at: Date(nanosecondsSinceEpoch: noon + 60_000_000_000))
            try expectDigestsMatchTheDisk(writer.takeChanges())
            let files = try Dictionary(uniqueKeysWithValues: directory.names.map { ($0, try Data(contentsOf: URL(fileURLWithPath: directory.file($0)))) })
            results.append((locations, files))
        }
        #expect(results[0].files.count > 3)
        #expect(results[1].locations == results[0].locations)
        #expect(results[1].files == results[0].files)
    }

    /// The live recorder stages records and writes them a round at a time; with the
    /// gather buffer full or a file to rotate, staging says so and the owner writes first. The
    /// files and the locations are the same byte for byte as one write per record.
    @Test func stagedRecordsWriteTheSameFilesAndLocationsAsOneWriteEach() throws {
        let sent = packets(40)
        var results: [(locations: [CaptureLocation], files: [String: Data])] = []
        var refusals = 0
        for staging in [false, true] {
            let directory = try TemporaryDirectory()
            let writer = try CaptureFileWriter(configuration: .init(directory: directory.path, rotationBytes: 2_000), highestSequenceInHistory: 0)
            writer.gatherCapacity = 600
            var locations: [CaptureLocation] = []
            for (index, packet) in sent.enumerated() {
                let stamp = noon + Int64(index) * 1_000_000
                guard staging else {
                    locations.append(try writer.write(packet, at: stamp))
                    continue
                }
                let stage = { try packet.withUnsafeBytes { try writer.stage($0, timestampNanoseconds: stamp) } }
                var record = try stage()
                if record == nil {
                    refusals += 1
                    try writer.writeStaged(at: Date(nanosecondsSinceEpoch: stamp))
                    record = try stage()
                }
                let staged = try #require(record)
                #expect(Array(writer.stagedBytes(staged)) == packet)
                locations.append(staged.location)
            }
            try writer.writeStaged(at: Date(nanosecondsSinceEpoch: noon + 60_000_000_000))
            try writer.close(at: Date(nanosecondsSinceEpoch: noon + 60_000_000_000))
            try expectDigestsMatchTheDisk(writer.takeChanges())
            let files = try Dictionary(uniqueKeysWithValues: directory.names.map { ($0, try Data(contentsOf: URL(fileURLWithPath: directory.file($0)))) })
            results.append((locations, files))
        }
        #expect(results[0].files.count > 3)
        // Both causes: rotation (every 2,000 bytes) and a full buffer (600 bytes hold four records).
        #expect(refusals > results[0].files.count)
        #expect(results[1].locations == results[0].locations)
        #expect(results[1].files == results[0].files)
    }

    /// A hashing thread that gets no CPU time while packets flow (it runs at idle priority) holds
    /// nothing up: the live writer keeps staging, a finished file's change waits while a file is
    /// open, and after the close each file's digest, read back where the thread fell behind, is
    /// still the digest of the file on disk.
    @Test func aHashingThreadWithoutCPUTimeHoldsUpNoStagingAndTheDigestsStillMatchTheDisk() throws {
        let directory = try TemporaryDirectory()
        let hashing = CaptureHashStage(poolSize: 2, bufferBytes: 600)
        hashing.startsThread = false
        let writer = try CaptureFileWriter(configuration: .init(directory: directory.path, rotationBytes: 2_000),
                                           highestSequenceInHistory: 0, hashing: hashing)
        writer.gatherCapacity = 600
        var whileOpen: [CaptureFileChange] = []
        for (index, packet) in packets(40).enumerated() {
            let stamp = noon + Int64(index) * 1_000_000
            let stage = { try packet.withUnsafeBytes { try writer.stage($0, timestampNanoseconds: stamp) } }
            if try stage() == nil {
                try writer.writeStaged(at: Date(nanosecondsSinceEpoch: stamp))
                _ = try #require(try stage())
            }
            if index == 30 { whileOpen = writer.takeChanges() }
        }
        let opened = whileOpen.filter { if case .opened = $0 { true } else { false } }.count
        // Every file but the open one is finished; some of them wait for their digest.
        #expect(opened >= 3)
        #expect(whileOpen.count - opened < opened - 1)
        try writer.writeStaged(at: Date(nanosecondsSinceEpoch: noon + 60_000_000_000))
        try writer.close(at: Date(nanosecondsSinceEpoch: noon + 60_000_000_000))
        let changes = whileOpen + writer.takeChanges()
        #expect(changes.count == 2 * changes.filter { if case .opened = $0 { true } else { false } }.count)
        try expectDigestsMatchTheDisk(changes)
    }

    /// Each finished file's digest, taken as the writer wrote, is the digest of the file on disk.
    private func expectDigestsMatchTheDisk(_ changes: [CaptureFileChange]) throws {
        var finished = 0
        for case .closed(let file, let sha256) in changes {
            let read = try CaptureFileDigest.sha256(ofFileAt: file.path)
            #expect(read.bytes == file.bytes && read.sha256 == sha256, "\(file.path)")
            finished += 1
        }
        #expect(finished > 3)
    }
}
