import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionStore

@Suite struct FlowRowTests {
    static func richFlow() -> FlowState {
        let phone = Endpoint(address: IPAddress("fd00::2")!, port: 50_000)
        let server = Endpoint(address: IPAddress("2001:db8::443")!, port: 443)
        let certificate = CertificateSummary(
            subject: "CN=api.acme.de", issuer: "CN=Acme CA,O=Acme", notBefore: at(-100), notAfter: at(1_000),
            sha256: String(repeating: "ab", count: 32), namesTruncated: true)
        return FlowState(
            key: FlowKey(proto: .tcp, phone, server), firstSeen: Instant(at(1)), lastSeen: Instant(at(2)), bytesOut: 517, bytesIn: 4096,
            packetCount: 9, tlsStatus: .encrypted, sni: "api.acme.de",
            resolvedName: ResolvedName(name: "api.acme.de", otherNames: ["cdn.acme.de", "x.acme.de"]),
            serverTLS: .negotiated(TLSNegotiation(version: .tls12, cipherSuite: CipherSuite(0xC02F), fromHelloRetryRequest: true)),
            serverCertificates: .presented(chain: [certificate], chainIsComplete: false),
            clientTLS: ClientTLSOffer(
                versionsForm: .listed, versions: [.tls13, .tls12, TLSProtocolVersion(0x7F1C)], applicationProtocols: ["h2", "http/1.1"],
                omittedApplicationProtocols: 1, droppedIdentifiers: 2, hasEncryptedClientHello: true),
            quic: nil, streamOpening: .tlsHandshake)
    }

    @Test func everyReadingSurvivesTheRoundTrip() throws {
        let db = TemporaryDatabase()
        let store = try db.open()
        let capture = try store.beginCaptureRun(toolVersion: "t", input: "i", at: at(0))
        let state = Self.richFlow()
        let id = try store.insert([state], captureRun: capture.id)[0]
        let read = try #require(try store.flow(id: id))
        #expect(read.state.key == state.key)
        #expect(read.sni == state.sni)
        #expect(read.resolvedName == state.resolvedName)
        #expect(read.serverTLS == state.serverTLS)
        #expect(read.serverCertificates == state.serverCertificates)
        #expect(read.clientTLS == state.clientTLS)
        #expect(read.streamOpening == .tlsHandshake)
        #expect(read.bytesOut == 517 && read.bytesIn == 4096 && read.packetCount == 9)
        #expect(read.tlsStatus == .encrypted)
    }

    @Test func refusalAndQUICReadingsRoundTrip() throws {
        let store = try TemporaryDatabase().open()
        let capture = try store.beginCaptureRun(toolVersion: "t", input: "i", at: at(0))
        var state = udpFlow(port: 443, at: at(1))
        state.serverTLS = .refused(alert: 70)
        state.quic = QUICReading(version: .v2, end: .server)
        state.serverCertificates = .notSent(.resumedSession)
        let id = try store.insert([state], captureRun: capture.id)[0]
        let read = try #require(try store.flow(id: id))
        #expect(read.serverTLS == .refused(alert: 70))
        #expect(read.quic == QUICReading(version: .v2, end: .server))
        #expect(read.serverCertificates == .notSent(.resumedSession))
        #expect(read.clientTLS == nil && read.streamOpening == nil && read.resolvedName == nil)
    }

    /// An update never lowers the status, never erases a reading, never renames a DNS name,
    /// and keeps the earliest first packet.
    @Test func updateMergesByTheRulesOfEachColumn() throws {
        let store = try TemporaryDatabase().open()
        let capture = try store.beginCaptureRun(toolVersion: "t", input: "i", at: at(0))
        var first = Self.richFlow()
        first.tlsStatus = .notInspectable
        let id = try store.insert([first], captureRun: capture.id)[0]
        var later = FlowState(key: first.key, firstSeen: Instant(at(5)), lastSeen: Instant(at(9)), bytesOut: 600, bytesIn: 5000, packetCount: 12)
        later.tlsStatus = .encrypted
        later.resolvedName = ResolvedName(name: "other.example")
        later.streamOpening = .unrecognised
        try store.write(HistoryBatch(flows: [FlowUpsert(handle: 0, rowID: id, state: later)]), captureRun: capture.id)
        let read = try #require(try store.flow(id: id))
        #expect(read.firstSeen.nanosecondsSinceEpoch == at(1).nanosecondsSinceEpoch)
        #expect(read.lastSeen.nanosecondsSinceEpoch == at(9).nanosecondsSinceEpoch)
        #expect(read.packetCount == 12 && read.bytesIn == 5000)
        #expect(read.tlsStatus == .notInspectable)
        #expect(read.resolvedName == first.resolvedName)
        #expect(read.streamOpening == .tlsHandshake)
        #expect(read.clientTLS == first.clientTLS && read.serverTLS == first.serverTLS && read.sni == first.sni)
        // A present reading replaces the old one whole.
        later.serverTLS = .negotiated(TLSNegotiation(version: .tls13, cipherSuite: CipherSuite(0x1301), source: .upstreamConnection))
        try store.write(HistoryBatch(flows: [FlowUpsert(handle: 0, rowID: id, state: later)]), captureRun: capture.id)
        #expect(try store.flow(id: id)?.serverTLS == later.serverTLS)
    }

    @Test func flowsOfASessionComeOldestFirstAndLimited() throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        let capture = try store.beginCaptureRun(toolVersion: "t", input: "i", at: at(0))
        let session = try store.startRecording(sessionDraft(project: project.id), at: at(0))
        let ids = try store.insert([udpFlow(port: 3, at: at(30)), udpFlow(port: 1, at: at(10)), udpFlow(port: 2, at: at(20))], captureRun: capture.id)
        #expect(try store.flows(inRecording: session.id, limit: 10).map(\.id) == [ids[1], ids[2], ids[0]])
        #expect(try store.flows(inRecording: session.id, limit: 2).map(\.id) == [ids[1], ids[2]])
        #expect(try store.flowCount(inRecording: session.id) == 3)
    }

    @Test func aPacketOfAFlowMissingFromItsBatchIsRefused() throws {
        let store = try TemporaryDatabase().open()
        let capture = try store.beginCaptureRun(toolVersion: "t", input: "i", at: at(0))
        let packet = PacketRecord(flow: 9, timestampNanoseconds: 1, direction: .outbound, wireLength: 60, location: .notCaptured)
        #expect(throws: History.BatchError.packetOfUnlistedFlow(9)) {
            try store.write(HistoryBatch(packets: [packet]), captureRun: capture.id)
        }
    }
}

@Suite struct PacketTests {
    /// Flow 1 in the session with packets in files 3 and 4 and one never captured; flow 2
    /// outside any session in file 5.
    struct Seeded {
        let db = TemporaryDatabase()
        let store: History
        let session: Recording
        let inside: Int64
        let outside: Int64

        init() throws {
            store = try db.open()
            let project = try store.createAuditProject(projectDraft(), at: at(0))
            let capture = try store.beginCaptureRun(toolVersion: "t", input: "i", at: at(0))
            let outsideRows = try store.write(HistoryBatch(
                flows: [FlowUpsert(handle: 2, rowID: nil, state: udpFlow(port: 2, at: at(0)))],
                packets: [PacketRecord(flow: 2, timestampNanoseconds: 5, direction: .outbound, wireLength: 80, location: CaptureLocation(fileSequence: 5, offset: 24))]),
                captureRun: capture.id)
            session = try store.startRecording(sessionDraft(project: project.id), at: at(1))
            func packet(_ offset: UInt64, file: UInt32, _ direction: Direction = .outbound) -> PacketRecord {
                PacketRecord(flow: 1, timestampNanoseconds: Int64(offset), direction: direction, wireLength: 100, location: CaptureLocation(fileSequence: file, offset: offset))
            }
            let rows = try store.write(HistoryBatch(
                flows: [FlowUpsert(handle: 1, rowID: nil, state: udpFlow(port: 1, at: at(2)))],
                packets: [packet(500, file: 4), packet(24, file: 3, .inbound), packet(300, file: 3), packet(0, file: 0), packet(24, file: 4)]),
                captureRun: capture.id)
            inside = rows[1]!
            outside = outsideRows[2]!
        }
    }

    @Test func packetCountsArePerFlowAndFileWithNilForNeverCaptured() throws {
        let seeded = try Seeded()
        let counts = try seeded.store.packetCounts(inRecording: seeded.session.id)
        #expect(Set(counts) == [
            SessionPacketCount(flowID: seeded.inside, fileSequence: nil, count: 1),
            SessionPacketCount(flowID: seeded.inside, fileSequence: 3, count: 2),
            SessionPacketCount(flowID: seeded.inside, fileSequence: 4, count: 2),
        ])
    }

    @Test func capturedPacketsComeOneFileAtATimeByOffset() throws {
        let seeded = try Seeded()
        let inThree = try seeded.store.capturedPackets(inRecording: seeded.session.id, fileSequence: 3)
        #expect(inThree.map(\.fileOffset) == [24, 300])
        #expect(inThree.map(\.direction) == [.inbound, .outbound])
        #expect(try seeded.store.capturedPackets(inRecording: seeded.session.id, fileSequence: 4).map(\.fileOffset) == [24, 500])
        #expect(try seeded.store.capturedPackets(inRecording: seeded.session.id, fileSequence: 0).isEmpty)
        #expect(try seeded.store.capturedPackets(inRecording: seeded.session.id, fileSequence: 5).isEmpty)
    }

    @Test func fileSequencesAreDerivedFromThePacketsAndNeverIncludeZero() throws {
        let seeded = try Seeded()
        #expect(try seeded.store.captureFileSequences(inRecording: seeded.session.id) == [3, 4])
        #expect(try seeded.store.auditEvidenceFileSequences() == [3, 4])
        #expect(try seeded.store.highestCaptureFileSequence() == 5)
    }

    @Test func pruneSkipsTaggedFlows() throws {
        let seeded = try Seeded()
        #expect(try seeded.store.prune(before: at(100)) == 1)
        #expect(try seeded.store.flow(id: seeded.outside) == nil)
        #expect(try seeded.store.flow(id: seeded.inside) != nil)
        #expect(try seeded.store.packetCounts(inRecording: seeded.session.id).map(\.count).reduce(0, +) == 5)
        // Once its session is deleted, the flow is no longer evidence and goes too.
        try seeded.store.deleteRecording(id: seeded.session.id)
        #expect(try seeded.store.prune(before: at(100)) == 1)
        #expect(try seeded.store.auditEvidenceFileSequences().isEmpty)
    }

    @Test func clearAllKeepsProjectsAndSessions() throws {
        let seeded = try Seeded()
        try seeded.store.clearAll()
        #expect(try seeded.store.flow(id: seeded.inside) == nil)
        #expect(try seeded.store.flowCount(inRecording: seeded.session.id) == 0)
        #expect(try seeded.store.recording(id: seeded.session.id) == seeded.session)
        #expect(try seeded.store.auditProjects().count == 1)
    }
}

@Suite struct CaptureRecordTests {
    @Test func interruptedCaptureSessionsCloseAtTheirLastPacket() throws {
        let store = try TemporaryDatabase().open()
        let crashed = try store.beginCaptureRun(toolVersion: "t", input: "tun:tv0", at: at(0))
        var state = udpFlow(port: 1, at: at(1))
        state.lastSeen = Instant(at(7))
        _ = try store.insert([state], captureRun: crashed.id)
        let empty = try store.beginCaptureRun(toolVersion: "t", input: "tun:tv0", at: at(8))
        #expect(try store.closeInterruptedCaptureRuns() == [crashed.id, empty.id])
        let sessions = try store.captureRuns()
        #expect(sessions.map { $0.endedAt?.nanosecondsSinceEpoch } == [at(7).nanosecondsSinceEpoch, at(8).nanosecondsSinceEpoch])
        #expect(try store.closeInterruptedCaptureRuns().isEmpty)
    }

    /// What the last tally of a session that never ended left unaccounted is lost,
    /// counted once, at the tally's minute; a session that ended, or was never tallied, loses nothing.
    @Test func anInterruptedCaptureSessionsLastTallyCountsWhatItLostOnceAtItsMinute() throws {
        let store = try TemporaryDatabase().open()
        let clean = try store.beginCaptureRun(toolVersion: "t", input: "tun:tv0", at: at(0))
        try store.write(HistoryBatch(), captureRun: clean.id, tally: TapTally(handed: 9, accounted: 2, at: at(1)))
        try store.endCaptureRun(id: clean.id, at: at(2))
        let untallied = try store.beginCaptureRun(toolVersion: "t", input: "tun:tv0", at: at(3))
        let crashed = try store.beginCaptureRun(toolVersion: "t", input: "tun:tv0", at: at(4))
        _ = try store.insert([udpFlow(port: 1, at: at(5))], captureRun: crashed.id)
        try store.write(HistoryBatch(), captureRun: crashed.id, tally: TapTally(handed: 50, accounted: 44, at: at(125)))
        try store.recordTally(TapTally(handed: 61, accounted: 47, at: at(130)), losses: [.queueFull: 3], captureRun: crashed.id)
        #expect(try store.tally(ofCaptureRun: crashed.id) == TapTally(handed: 61, accounted: 47, at: at(130)))
        #expect(try store.tally(ofCaptureRun: untallied.id) == nil)

        #expect(try store.closeInterruptedCaptureRuns() == [untallied.id, crashed.id])
        #expect(try store.closeInterruptedCaptureRuns().isEmpty)
        let minute = try store.reading { try $0.packetLosses(from: Instant(at(120)), to: Instant(at(179))) }
        #expect(minute == [.queueFull: 3, .daemonStopped: 14])
        #expect(try store.packetLosses(from: Instant(at(0)), to: Instant(at(79))).isEmpty)
    }

    @Test func captureFileRecordsAreReplacedWhenClosed() throws {
        let store = try TemporaryDatabase().open()
        try store.recordCaptureFile(CaptureFile(sequence: 1, path: "/c/1.pcap", createdAt: at(0), closedAt: nil, bytes: 24))
        try store.recordCaptureFile(CaptureFile(sequence: 1, path: "/c/1.pcap", createdAt: at(0), closedAt: at(5), bytes: 4096))
        try store.recordCaptureFile(CaptureFile(sequence: 2, path: "/c/2.pcap", createdAt: at(5), closedAt: nil, bytes: 24))
        #expect(try store.captureFiles().map(\.bytes) == [4096, 24])
        #expect(try store.highestCaptureFileSequence() == 2)
        try store.deleteCaptureFile(sequence: 1)
        #expect(try store.captureFiles().map(\.sequence) == [2])
    }

    @Test func settingsAndHeartbeatAreWhatTheDaemonLastWrote() throws {
        let store = try TemporaryDatabase().open()
        #expect(try store.latestHeartbeat() == nil)
        #expect(try store.daemonSettings() == DaemonSettings())
        try store.saveDaemonSettings(DaemonSettings(input: .tun(name: "tv0"), inspection: true), at: at(0))
        try store.saveDaemonSettings(DaemonSettings(inspection: false), at: at(1))
        #expect(try store.daemonSettings() == DaemonSettings(inspection: false))
        let beat = DaemonHeartbeat(at: at(2), pid: 42, captureRunID: 3, input: "tun:tv0", packetsSeen: 10, packetsDropped: 1)
        try store.recordHeartbeat(beat)
        var next = beat
        next.at = at(3)
        next.packetsSeen = 20
        try store.recordHeartbeat(next)
        let read = try #require(try store.latestHeartbeat())
        #expect(read.packetsSeen == 20 && read.pid == 42 && read.packetsDropped == 1)
        #expect(read.at.nanosecondsSinceEpoch == at(3).nanosecondsSinceEpoch)
    }
}

@Suite struct FlowCodingTests {
    /// The hand-written JSON must read back through a real JSON parser, whatever the names hold.
    @Test(arguments: [["h2", "http/1.1"], [], ["quote\"d", "back\\slash", "tab\tnew\nline\u{01}", "ünï", "😀"]])
    func stringListsRoundTrip(strings: [String]) {
        #expect(FlowCoding.strings(FlowCoding.json(strings)) == strings)
    }

    @Test func certificateChainsRoundTrip() {
        let odd = CertificateSummary(
            subject: "CN=\"quoted\",O=Back\\slash\u{7}", issuer: "CN=Ünïcode CA", notBefore: nil,
            notAfter: Date(nanosecondsSinceEpoch: 1_800_000_000_000_000_000), sha256: "ab", namesTruncated: false)
        let reading = ServerCertificateReading.presented(chain: [odd, odd], chainIsComplete: true)
        #expect(FlowCoding.certificates(FlowCoding.certificatesJSON(reading)) == reading)
        #expect(FlowCoding.certificates(FlowCoding.certificatesJSON(.notSent(.noCertificateMessage))) == .notSent(.noCertificateMessage))
    }
}
