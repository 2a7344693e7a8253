import Foundation
import Testing
@testable import TunnelVisionArchive
import TunnelVisionModel
import TunnelVisionStore

@Suite("The archive's configuration")
struct ArchiveConfigurationTests {
    @Test("A socket on this host needs no TLS; the gateway's name and the key-log choice are read")
    func local() throws {
        let configuration = try ArchiveConfiguration.parse(
            "# lab archive\nconnection = host=/run/postgresql dbname=lab\ngateway = bench-a\npublish_key_logs = yes\n", path: "a.conf")
        #expect(configuration == ArchiveConfiguration(connection: "host=/run/postgresql dbname=lab", gateway: "bench-a", publishKeyLogs: true))
    }

    @Test("A server on another host without sslmode=verify-full is refused")
    func remoteWithoutVerification() {
        #expect(throws: ArchiveError.self) {
            try ArchiveConfiguration.parse("connection = host=archive.lab dbname=lab sslmode=require\ngateway = a\n", path: "a.conf")
        }
        #expect(throws: Never.self) {
            try ArchiveConfiguration.parse(
                "connection = host=archive.lab dbname=lab sslmode=verify-full sslrootcert=/etc/ssl/lab.pem\ngateway = a\n", path: "a.conf")
        }
    }

    @Test("An unknown key, a missing gateway and a name with a colon are refused")
    func refusals() {
        for text in ["connection = host=/tmp\ngateway = a\ncolour = blue\n", "connection = host=/tmp\n", "connection = host=/tmp\ngateway = a:b\n"] {
            #expect(throws: ArchiveError.self) { try ArchiveConfiguration.parse(text, path: "a.conf") }
        }
    }

    @Test("A file others may read is refused: it holds the archive's password")
    func modes() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tv-archive-\(UUID().uuidString).conf").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "connection = host=/tmp\ngateway = a\n".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o644)
        #expect(throws: ArchiveError.self) { try ArchiveConfiguration.read(path: path) }
        chmod(path, 0o600)
        #expect(try ArchiveConfiguration.read(path: path).gateway == "a")
    }
}

@Suite("The archive's rows and names")
struct ArchiveRowTests {
    @Test("A row keeps every value's kind through its JSON")
    func roundTrip() {
        let row = HistoryRow(columns: [
            ("a", .integer(Int64.max)), ("b", .text("quoted \" and \u{1}")), ("c", .blob([0, 255, 7])), ("d", .null),
            ("e", .real(0.25)), ("f", .integer(-3)), ("g", .text("")),
        ])
        #expect(RowJSON.row(RowJSON.text(row)) == row)
    }

    @Test("A recording is GATEWAY:NUMBER, the last colon splitting")
    func references() {
        #expect(ArchivedRecordingReference("bench-a:7") == ArchivedRecordingReference("bench-a:7"))
        #expect(ArchivedRecordingReference("bench-a:7")?.localID == 7)
        #expect(ArchivedRecordingReference("7") == nil)
        #expect(ArchivedRecordingReference(":7") == nil)
        #expect(ArchivedRecordingReference("a:0") == nil)
    }

    @Test("After failures the wait doubles from a minute up to an hour")
    func backoff() {
        #expect([1, 2, 3, 7, 8, 20].map(ArchiveState.backoff(afterFailures:)) == [60, 120, 240, 3_600, 3_600, 3_600])
    }

    @Test("A held recording waits its own backoff while the others are due; a state file from before holds none")
    func held() throws {
        let minute: Int64 = 60_000_000_000
        var state = ArchiveState()
        state.hold(5, reason: "its capture is not a file", now: 0)
        #expect(!state.isDue(5, now: minute - 1) && state.isDue(5, now: minute) && state.isDue(6, now: 0))
        state.hold(5, reason: "still not", now: minute)
        #expect(state.held == [.init(id: 5, reason: "still not", failures: 2, nextAttempt: 3 * minute)])
        state.release(5)
        #expect(state.held.isEmpty && state.isDue(5, now: 0))
        let before = #"{"archived":[1,2],"failures":1,"lastError":"The archive did not answer.","projects":{}}"#
        let read = try JSONDecoder().decode(ArchiveState.self, from: Data(before.utf8))
        #expect(read.archived == [1, 2] && read.failures == 1 && read.held.isEmpty)
    }
}

@Suite("A recording through the archive's rows")
struct RebuiltHistoryTests {
    @Test("The recording, its project and markers read back from a rebuilt history are the gateway's")
    func rebuilt() throws {
        let folder = try GatewayRecording.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let gatewayPath = folder.appendingPathComponent("gateway.sqlite").path
        let start = GatewayRecording.start
        let (gateway, project, session) = try GatewayRecording.open(
            at: gatewayPath, allowlist: [AllowlistEntry(pattern: try DomainPattern(parsing: "*.acme.example"), note: "api")])
        _ = try gateway.addMarker(.custom("opened the diary"), toSession: session.id, at: start.addingTimeInterval(1))
        let ended = try gateway.endRecording(id: session.id, at: start.addingTimeInterval(5))

        let history = GatewayHistory(path: gatewayPath)
        #expect(try history.endedRecordingIDs() == [session.id])
        let extract = try history.extract(recordingID: session.id, publishKeyLogs: false)
        #expect(extract.projectName == "Acme Health" && extract.allowlist.count == 1 && extract.markers.count == 1)

        let rebuiltPath = folder.appendingPathComponent("rebuilt.sqlite").path
        _ = try History(path: rebuiltPath)
        // Through the archive's JSON, as a reader receives the rows.
        let received = RecordingExtract(
            recording: RowJSON.row(RowJSON.text(extract.recording))!, project: extract.project, allowlist: extract.allowlist,
            markers: extract.markers.map { RowJSON.row(RowJSON.text($0))! }, flows: [], relays: [], historySchema: extract.historySchema)
        #expect(try RebuiltHistory.write([received, received], intoHistoryAt: rebuiltPath) == [session.id, session.id + 1])
        let rebuilt = try History(path: rebuiltPath)
        #expect(try rebuilt.recording(id: session.id) == ended)
        #expect(try rebuilt.auditProject(id: 1)?.allowlist == project.allowlist)
        #expect(try rebuilt.markers(forSession: session.id + 1).map(\.kind) == [.custom("opened the diary")])
    }

    @Test("A row with a column name not of the history's form is refused, never put into a statement")
    func hostileColumn() throws {
        let folder = try GatewayRecording.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("rebuilt.sqlite").path
        _ = try History(path: path)
        // Read as SQL, the name would make a whole statement of its own choosing.
        let hostile = HistoryRow(columns: [
            ("id", .integer(1)), ("name\", \"created_at\", \"bundle_id\") VALUES (7, 'injected', 0, 'x') --", .text("x")),
        ])
        let connection = try HistoryRowConnection(path: path, readOnly: false)
        #expect(throws: ArchiveError.self) { try connection.insert(hostile, into: "audit_projects") }
        #expect(try History(path: path).auditProjects().isEmpty)
    }
}

@Suite("Requests through the archive's rows")
struct ArchivedRequestsTests {
    @Test("The requests the relay read inside a flow come back on that flow from a rebuilt history")
    func requestsComeBack() throws {
        let folder = try GatewayRecording.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let gatewayPath = folder.appendingPathComponent("gateway.sqlite").path
        let start = GatewayRecording.start
        let (gateway, _, session) = try GatewayRecording.open(at: gatewayPath, allowlist: [])
        let capture = try gateway.beginCaptureRun(toolVersion: "test", input: "tun:tv0", at: start)
        let state = FlowState(
            key: FlowKey(proto: .tcp, Endpoint(address: IPAddress("10.77.0.2")!, port: 40_000), Endpoint(address: IPAddress("198.51.100.30")!, port: 443)),
            firstSeen: Instant(start.addingTimeInterval(1)))
        var facts = RelayFacts(decision: .terminated, event: .closed)
        facts.requests = [
            ReadRequest(
                instant: Instant(nanosecondsSinceEpoch: 1_790_000_001_123_456_789), version: .http2, method: "POST",
                authority: "api.acme.example", path: nil, bodyBytes: 48_000, responseStatus: 201, stream: 1),
            ReadRequest(
                instant: Instant(nanosecondsSinceEpoch: 1_790_000_001_500_000_001), version: .http2, method: "GET",
                authority: "cdn.acme.example", path: nil, bodyBytes: 0, responseStatus: nil, stream: 3),
        ]
        facts.requestsNotKept = 2
        _ = try gateway.write(
            HistoryBatch(flows: [FlowUpsert(handle: 1, rowID: nil, state: state)], relayFacts: [RelayFactsRecord(flow: 1, facts: facts)]),
            captureRun: capture.id)
        _ = try gateway.endRecording(id: session.id, at: start.addingTimeInterval(5))
        let original = try #require(try gateway.flows(inRecording: session.id).first)
        #expect(original.requests == facts.requests)

        let extract = try GatewayHistory(path: gatewayPath).extract(recordingID: session.id, publishKeyLogs: false)
        #expect(extract.requests.count == 2)
        // Through the archive's JSON, as a reader receives the rows.
        var received = RecordingExtract(
            recording: RowJSON.row(RowJSON.text(extract.recording))!, project: extract.project, allowlist: extract.allowlist,
            markers: extract.markers.map { RowJSON.row(RowJSON.text($0))! }, flows: extract.flows.map { RowJSON.row(RowJSON.text($0))! },
            relays: extract.relays.map { RowJSON.row(RowJSON.text($0))! }, historySchema: extract.historySchema)
        received.requests = extract.requests.map { RowJSON.row(RowJSON.text($0))! }
        let rebuiltPath = folder.appendingPathComponent("rebuilt.sqlite").path
        _ = try History(path: rebuiltPath)
        let ids = try RebuiltHistory.write([received], intoHistoryAt: rebuiltPath)
        let rebuilt = try #require(try History(path: rebuiltPath).flows(inRecording: ids[0]).first)
        #expect(rebuilt.requests == original.requests)
        #expect(rebuilt.requestsNotKept == 2)
    }
}

/// A gateway's history with a project and an open audit recording of it, as both suites above
/// start from.
enum GatewayRecording {
    /// An empty folder of the test's own under the temporary directory; the test removes it.
    static func scratchFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tv-archive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    static func open(at path: String, allowlist: [AllowlistEntry]) throws -> (History, AuditProject, Recording) {
        let gateway = try History(path: path)
        let project = try gateway.createAuditProject(AuditProjectDraft(name: "Acme Health", allowlist: allowlist), at: start)
        let session = try gateway.startRecording(
            RecordingDraft(
                projectID: project.id, kind: .audit(AppRelease(version: "2.0", build: "20")),
                environment: AuditEnvironment(deviceModel: "Pixel 8", osVersion: "Android 15", toolVersion: "test"),
                inspection: InspectionConditions(inspectionEnabled: false, caTrusted: false)),
            at: start)
        return (gateway, project, session)
    }
}
