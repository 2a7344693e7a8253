import CaptureTestSupport
import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionCaptureFiles

@Suite struct CaptureFileReaderTests {
    /// A raw-IP capture made by another project: our walk finds the same frames tshark does.
    @Test(.enabled(if: externalCapturesArePresent, "skipped extra: the external captures are absent"))
    func aRawIPCaptureFromElsewhereReadsLikeTsharkReadsIt() throws {
        let path = externalCaptures + "/zeek/ech.pcap"
        let reader = try CaptureFileReader(path: path)
        let walk = try reader.recordOffsets()
        #expect(walk.tornTailAt == nil)
        let frames = try tsharkFields(path, ["frame.len", "frame.cap_len", "frame.time_epoch"])
        #expect(walk.complete.count == frames.count)
        for (offset, frame) in zip(walk.complete, frames) {
            let record = try reader.record(at: offset)
            #expect(String(record.originalLength) == frame[0])
            #expect(String(record.bytes.count) == frame[1])
            let micros = record.timestampNanoseconds / 1_000
            #expect(frame[2].replacingOccurrences(of: ".", with: "").hasPrefix(String(micros)))
        }
    }

    @Test(.enabled(if: externalCapturesArePresent, "skipped extra: the external captures are absent"), arguments: [
        ("arkime/openssl-ssl3.pcap", ForeignCaptureReason.linkType(1)),
        ("tcpdump/tcp-handshake-nano.pcap", .unknownMagic),
        ("nDPI/tls_1.2_unidirectional_server.pcapng", .unknownMagic),
    ])
    func foreignCapturesAreRefused(file: String, reason: ForeignCaptureReason) {
        let path = externalCaptures + "/" + file
        #expect(throws: CaptureReadError.foreign(path: path, reason: reason)) { try CaptureFileReader(path: path) }
    }

    @Test func aMissingFileSaysSo() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("tunnelvision-000009-20250101-000000.pcap")
        #expect(throws: CaptureReadError.missing(path: path)) { try CaptureFileReader(path: path) }
    }

    @Test func aShortFileIsNotACapture() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("short.pcap")
        directory.create("short.pcap", bytes: [0xD4, 0xC3, 0xB2, 0xA1])
        #expect(throws: CaptureReadError.foreign(path: path, reason: .shorterThanHeader)) { try CaptureFileReader(path: path) }
    }

    @Test func aBigEndianFileReadsTheSame() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("big-endian.pcap")
        let packet: [UInt8] = TestPackets.udpV4(source: [10, 77, 0, 2], destination: [192, 0, 2, 1], sourcePort: 1, destinationPort: 2, payload: [1, 2, 3])
        func bigEndian32(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        var bytes = bigEndian32(0xA1B2_C3D4) + [0, 2, 0, 4] + bigEndian32(0) + bigEndian32(0) + bigEndian32(65_535) + bigEndian32(101)
        bytes += bigEndian32(1_700_000_000) + bigEndian32(250_000) + bigEndian32(UInt32(packet.count)) + bigEndian32(UInt32(packet.count)) + packet
        directory.create("big-endian.pcap", bytes: bytes)

        let reader = try CaptureFileReader(path: path)
        #expect(reader.header.isByteSwapped && reader.header.snapshotLength == 65_535)
        let record = try reader.record(at: 24)
        #expect(record.bytes == packet)
        #expect(record.timestampNanoseconds == 1_700_000_000_250_000_000)
        #expect(try tsharkFields(path, ["ip.dst"]) == [["192.0.2.1"]])
    }

    @Test func offsetsThatHoldNoRecordAreRefusedBeforeAnythingIsAllocated() throws {
        let directory = try TemporaryDirectory()
        let writer = try CaptureFileWriter(configuration: .init(directory: directory.path, snapshotLength: 200), highestSequenceInHistory: 0)
        let packet = TestPackets.udpV4(source: [10, 77, 0, 2], destination: [192, 0, 2, 1], sourcePort: 1, destinationPort: 2, payload: [UInt8](repeating: 0xEE, count: 150))
        let location = try writer.write(packet, at: 1_000)
        try writer.flush()
        let path = try #require(writer.currentFile?.path)
        let reader = try CaptureFileReader(path: path)

        #expect(throws: CaptureReadError.noRecordAt(path: path, offset: 0)) { try reader.record(at: 0) }
        #expect(throws: CaptureReadError.noRecordAt(path: path, offset: 23)) { try reader.record(at: 23) }
        #expect(throws: CaptureReadError.noRecordAt(path: path, offset: .max)) { try reader.record(at: .max) }
        // Inside the payload, whose bytes 0xEEEEEEEE read as a length far above the snaplen.
        #expect(throws: CaptureReadError.recordLongerThanSnapshot(path: path, offset: 100, claimed: 0xEEEE_EEEE)) { try reader.record(at: 100) }
        #expect(throws: CaptureReadError.recordCutShort(path: path, offset: 1_000)) { try reader.record(at: 1_000) }
        #expect(try reader.record(at: location.offset).bytes == packet)
    }

    @Test func aTornTailIsFoundAndCutOffSoThatOtherReadersAcceptTheFile() throws {
        let directory = try TemporaryDirectory()
        let writer = try CaptureFileWriter(configuration: .init(directory: directory.path), highestSequenceInHistory: 0)
        let packet = TestPackets.udpV4(source: [10, 77, 0, 2], destination: [192, 0, 2, 1], sourcePort: 1, destinationPort: 2, payload: [UInt8](repeating: 7, count: 60))
        let locations = try (0..<3).map { try writer.write(packet, at: 1_000 * Int64($0)) }
        try writer.flush()
        let path = try #require(writer.currentFile?.path)
        let whole = UInt64(24 + 3 * (16 + packet.count))
        #expect(truncate(path, off_t(whole - 10)) == 0)  // as if killed inside the third write

        let reader = try CaptureFileReader(path: path)
        #expect(throws: CaptureReadError.recordCutShort(path: path, offset: locations[2].offset)) { try reader.record(at: locations[2].offset) }
        let walk = try reader.recordOffsets()
        #expect(walk.complete == Array(locations.prefix(2).map(\.offset)))
        #expect(walk.tornTailAt == locations[2].offset)

        let mended = try cutTornTail(ofCaptureFile: path)
        #expect(mended.length == locations[2].offset && mended.cut == whole - 10 - locations[2].offset)
        #expect(try CaptureFileReader(path: path).recordOffsets().tornTailAt == nil)
        let info = try run("capinfos", ["-T", "-r", "-c", path])
        #expect(info.status == 0)
        #expect(info.output.hasSuffix("\t2\n"))
        let again = try cutTornTail(ofCaptureFile: path)
        #expect(again.length == locations[2].offset && again.cut == 0)
    }
}

/// What a `capture_files` row may touch: a capture file directly inside the configured folder.
@Suite struct CaptureFolderTests {
    static let stamp = Date(timeIntervalSince1970: 1_764_504_000)

    @Test func onlyNamesOfTheCaptureFormDirectlyInsideTheFolderAreOurs() {
        let name = CaptureFileName.name(sequence: 7, createdAt: Self.stamp)
        #expect(CaptureFileName.ownName(ofPath: "/var/lib/tunnelvision/captures/" + name, inFolder: "/var/lib/tunnelvision/captures") == name)
        #expect(CaptureFileName.ownName(ofPath: "/var/lib/tunnelvision/captures/" + name, inFolder: "/var/lib/tunnelvision/captures/") == name)
        #expect(CaptureFileName.ownName(ofPath: "/var/lib/tunnelvision/captures//" + name, inFolder: "/var/lib/tunnelvision/captures/") == name)
        #expect(CaptureFileName.ownName(ofPath: "captures/" + name, inFolder: "captures") == name)
        #expect(CaptureFileName.ownName(ofPath: "/var/lib/tunnelvision-ca/ca.key", inFolder: "/var/lib/tunnelvision/captures") == nil)
        #expect(CaptureFileName.ownName(ofPath: "/var/lib/tunnelvision/captures/ca.key", inFolder: "/var/lib/tunnelvision/captures") == nil)
        #expect(CaptureFileName.ownName(ofPath: "/var/lib/tunnelvision/captures/../" + name, inFolder: "/var/lib/tunnelvision/captures") == nil)
        #expect(CaptureFileName.ownName(ofPath: "/var/lib/tunnelvision/captures-old/" + name, inFolder: "/var/lib/tunnelvision/captures") == nil)
        #expect(CaptureFileName.ownName(ofPath: "/var/lib/tunnelvision/captures/sub/" + name, inFolder: "/var/lib/tunnelvision/captures") == nil)
    }

    @Test func aLinkOfTheCaptureFormIsNeitherCutNorFollowed() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("captures"), withIntermediateDirectories: false)
        directory.create("key", bytes: Array(repeating: 0x41, count: 50))
        let name = CaptureFileName.name(sequence: 1, createdAt: Self.stamp)
        #expect(symlink(directory.file("key"), directory.file("captures/" + name)) == 0)
        let folder = try CaptureFolder(path: directory.file("captures"))
        #expect(throws: CaptureReadError.self) { try folder.cutTornTail(name) }
        #expect(folder.modified(name) == nil)
        #expect(folder.remove(name) == 0)
        #expect(FileManager.default.contents(atPath: directory.file("key"))?.count == 50)
        #expect(directory.names(in: "captures").isEmpty)
    }
}
