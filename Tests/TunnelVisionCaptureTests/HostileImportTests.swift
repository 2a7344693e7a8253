import CaptureTestSupport
import Foundation
import Testing
import TunnelVisionCaptureFiles
import TunnelVisionImport
import TunnelVisionModel
import TunnelVisionStore

/// An import of a damaged file fails where it stopped, an
/// impossible stamp is counted and not stored, and the history ends up in its main file.
@Suite struct HostileImportTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Captures").standardized.path

    let work: TemporaryDirectory
    let store: History

    init() throws {
        work = try TemporaryDirectory()
        store = try History(path: work.file("history.sqlite"))
    }

    func importing(_ path: String, rotationBytes: UInt64 = 64 * 1024 * 1024) throws(OfflineImport.ImportError) -> OfflineImport.Summary {
        let request = OfflineImportRequest(capturePath: path, captureDirectory: work.file("captures"), clientNetworks: [],
                                           rotationBytes: rotationBytes)
        return try OfflineImport.run(request, into: store, toolVersion: "test")
    }

    /// Offsets of the records of a classic little-endian pcap file.
    static func recordOffsets(_ bytes: [UInt8]) -> [Int] {
        var offsets: [Int] = []
        var at = 24
        while at + 16 <= bytes.count {
            offsets.append(at)
            let caplen = bytes[at + 8 ..< at + 12].reversed().reduce(0) { $0 << 8 | Int($1) }
            at += 16 + caplen
        }
        return offsets
    }

    @Test func aFileCutInsideARecordFailsNamingThePacketAndWhatWasImported() throws {
        let whole = Array(try Data(contentsOf: URL(fileURLWithPath: "\(Self.corpus)/tls13.pcap")))
        let offsets = Self.recordOffsets(whole)
        #expect(offsets.count > 10)
        // Cut in the middle of the eighth record's bytes.
        let cut = offsets[7] + 16 + 10
        work.create("cut.pcap", bytes: Array(whole[..<cut]))
        do {
            _ = try importing(work.file("cut.pcap"))
            Issue.record("a file cut inside a record was imported as if it had ended")
        } catch {
            guard case .stoppedEarly(_, let packet, let imported, let session, _) = error else {
                Issue.record("wrong error: \(error)")
                return
            }
            #expect(packet == 8)
            #expect(imported == 7)
            #expect("\(error)".contains("stopped at packet 8"))
            #expect("\(error)".contains("7 packets before it are imported as capture session \(session)"))
            // What was read before the error is history, in a closed session.
            let rows = try store.reading { try $0.flows(inCaptureRun: session) }.reduce(0) { $0 + $1.packetCount }
            #expect(rows == 7)
            #expect(try store.captureRuns().first { $0.id == session }?.endedAt != nil)
        }
    }

    @Test func aPcapngWithInterfacesOfTwoLinkTypesIsRefusedInOneSentence() throws {
        let packet = TestPackets.udpV4(source: [10, 0, 0, 1], destination: [10, 0, 0, 2], sourcePort: 5000, destinationPort: 53, payload: [1, 2, 3, 4])
        let ethernet = [UInt8](repeating: 0x02, count: 12) + [0x08, 0x00] + packet
        var file = PcapngBytes.sectionHeader()
        file += PcapngBytes.interface(linkType: 1)
        file += PcapngBytes.interface(linkType: 101)
        file += PcapngBytes.packet(interface: 0, microseconds: 1_700_000_000_000_000, data: ethernet)
        file += PcapngBytes.packet(interface: 1, microseconds: 1_700_000_000_000_001, data: packet)
        work.create("two.pcapng", bytes: file)
        do {
            _ = try importing(work.file("two.pcapng"))
            Issue.record("a second link type was imported with exit 0")
        } catch {
            guard case .severalLinkTypes = error else {
                Issue.record("wrong error: \(error)")
                return
            }
            #expect("\(error)".contains("interfaces have different link types"))
        }
    }

    @Test func aPacketWithAnImpossibleTimestampIsCountedNotStored() throws {
        let packet = TestPackets.udpV4(source: [10, 0, 0, 1], destination: [10, 0, 0, 2], sourcePort: 5000, destinationPort: 53, payload: [1, 2, 3, 4])
        var file = PcapngBytes.sectionHeader() + PcapngBytes.interface(linkType: 101)
        file += PcapngBytes.packet(interface: 0, microseconds: 1_700_000_000_000_000, data: packet)
        // Year 586 912: no instant the history can hold (and, wrapped, a flow that began in 1969).
        file += PcapngBytes.packet(interface: 0, microseconds: UInt64.max - 5, data: packet)
        work.create("stamp.pcapng", bytes: file)
        let summary = try importing(work.file("stamp.pcapng"))
        #expect(summary.packets == 1)
        #expect(summary.impossibleTimestamps == 1)
        let flows = try store.reading { try $0.flows(inCaptureRun: summary.captureRun) }
        #expect(flows.count == 1)
        #expect(flows.allSatisfy { $0.firstSeen.date.timeIntervalSince1970 > 1_600_000_000 && $0.lastSeen.date.timeIntervalSince1970 < 1_800_000_000 })
    }

    // Item 9: `--read` wrote one file whatever rotate_bytes said.
    @Test func anImportRotatesItsCopiesAtTheConfiguredSize() throws {
        let summary = try importing("\(Self.corpus)/fragments.pcap", rotationBytes: 4096)
        let files = try store.captureFiles()
        let written = files.reduce(UInt64(0)) { $0 + $1.bytes }
        #expect(summary.captureFiles == files.count)
        #expect(written > 3 * 4096, "the corpus file is large enough to need several files")
        // A file ends at the first record that crosses the limit, so none holds much above it.
        #expect(files.count >= Int(written / (4096 + 65_536)) + 1)
        #expect(files.count > 2)
    }

    @Test func anImportLeavesTheWholeHistoryInTheMainFile() throws {
        let summary = try importing("\(Self.corpus)/tls13.pcap")
        #expect(summary.packets > 0)
        let wal = work.file("history.sqlite-wal")
        let walBytes = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
        #expect(walBytes == 0)
        // The main file alone, copied away from its WAL, holds the import.
        let copy = try TemporaryDirectory()
        try FileManager.default.copyItem(atPath: work.file("history.sqlite"), toPath: copy.file("copy.sqlite"))
        let copied = try History(path: copy.file("copy.sqlite"))
        #expect(try copied.captureRuns().contains { $0.id == summary.captureRun })
        #expect(try copied.reading { try $0.flows(inCaptureRun: summary.captureRun) }.count > 0)
    }
}

/// A history emptied after it was made is not a new history.
@Suite struct EmptyHistoryFileTests {
    @Test func aZeroLengthFileThatNoOneIsCreatingIsRefused() throws {
        let work = try TemporaryDirectory()
        work.create("history.sqlite", bytes: [])
        #expect(throws: HistoryError.emptyFile(path: work.file("history.sqlite"))) { try History(path: work.file("history.sqlite")) }
        // A new one is still made where there is none.
        _ = try History(path: work.file("new.sqlite"))
    }
}

/// pcapng blocks by hand, little-endian, microsecond stamps.
enum PcapngBytes {
    static func block(_ type: UInt32, _ body: [UInt8]) -> [UInt8] {
        let padded = body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
        let length = UInt32(12 + padded.count)
        return le(type) + le(length) + padded + le(length)
    }

    static func sectionHeader() -> [UInt8] {
        block(0x0A0D_0D0A, le(UInt32(0x1A2B_3C4D)) + le16(1) + le16(0) + [UInt8](repeating: 0xFF, count: 8))
    }

    static func interface(linkType: UInt16) -> [UInt8] { block(1, le16(linkType) + le16(0) + le(UInt32(65_535))) }

    static func packet(interface: UInt32, microseconds: UInt64, data: [UInt8]) -> [UInt8] {
        block(6, le(interface) + le(UInt32(microseconds >> 32)) + le(UInt32(microseconds & 0xFFFF_FFFF))
            + le(UInt32(data.count)) + le(UInt32(data.count)) + data)
    }

    static func le(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
}
