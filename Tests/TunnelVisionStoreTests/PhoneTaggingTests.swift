import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionStore

let phoneA = Phone(
    name: "pixel", ipv4: IPAddress("10.77.0.2")!, ipv6: IPAddress("fd77::2")!,
    publicKey: "cGl4ZWwtcGhvbmUta2V5LWZvci10ZXN0cy0wMDAwMDA=", keyFingerprint: String(repeating: "a", count: 64))
let phoneB = Phone(
    name: "iphone", ipv4: IPAddress("10.77.0.3")!, ipv6: IPAddress("fd77::3")!,
    publicKey: "aXBob25lLXBob25lLWtleS1mb3ItdGVzdHMtMDAwMDA=", keyFingerprint: String(repeating: "b", count: 64))

/// A recording belongs to one phone: the flows it takes are those whose client end is one of
/// that phone's addresses, decided in the statement that writes them.
@Suite struct PhoneTaggingTests {
    struct Lab {
        let db = TemporaryDatabase()
        let store: History
        let project: AuditProject
        let capture: CaptureRun

        init() throws {
            store = try db.open()
            project = try store.createAuditProject(projectDraft(), at: at(0))
            capture = try store.beginCaptureRun(toolVersion: "test", input: "test", at: at(0))
            try store.addPhone(phoneA, at: at(0))
            try store.addPhone(phoneB, at: at(0))
        }

        func start(_ phone: Phone?, at seconds: Double = 1) throws -> Recording {
            var draft = sessionDraft(project: project.id)
            draft.phone = phone
            return try store.startRecording(draft, at: at(seconds))
        }

        /// A flow from CLIENT to a server, written as the engine writes it (client end named).
        func write(from client: String, port: UInt16, tagging: RecordingTagging = .openRecordings) throws -> Int64 {
            let address = IPAddress(client)!
            let server = address.family == .v4 ? IPAddress("93.184.216.34")! : IPAddress("2606:2800:220:1::34")!
            let state = FlowState(
                key: FlowKey(proto: .tcp, Endpoint(address: address, port: port), Endpoint(address: server, port: 443)),
                firstSeen: Instant(at(2)))
            let rows = try store.write(
                HistoryBatch(flows: [FlowUpsert(handle: 1, rowID: nil, state: state, client: address)]),
                captureRun: capture.id, tagging: tagging)
            return rows[1]!
        }

        func tag(of id: Int64) throws -> Int64? {
            try store.access { db in
                try db.statement("SELECT audit_session_id FROM flows WHERE id = ?").bind(.integer(id)).firstRow { $0.int64OrNil(0) } ?? nil
            }
        }
    }

    @Test func aPhonesRecordingTakesItsOwnFlowsOnBothFamiliesAndNoOtherPhones() throws {
        let lab = try Lab()
        let session = try lab.start(phoneA)
        #expect(try lab.tag(of: lab.write(from: "10.77.0.2", port: 40000)) == session.id)
        #expect(try lab.tag(of: lab.write(from: "fd77::2", port: 40001)) == session.id)
        #expect(try lab.tag(of: lab.write(from: "10.77.0.3", port: 40002)) == nil)
        #expect(try lab.tag(of: lab.write(from: "fd77::3", port: 40003)) == nil)
        // The gateway's own traffic, and an address of no phone.
        #expect(try lab.tag(of: lab.write(from: "10.77.0.1", port: 40004)) == nil)
        #expect(try lab.tag(of: lab.write(from: "192.0.2.9", port: 40005)) == nil)
        #expect(try lab.store.flowCount(inRecording: session.id) == 2)
    }

    @Test func aFlowWhoseClientIsUnknownJoinsNoPhonesRecording() throws {
        let lab = try Lab()
        let session = try lab.start(phoneA)
        let state = udpFlow(port: 1000, at: at(2))
        let id = try lab.store.insert([state], captureRun: lab.capture.id)[0]
        #expect(try lab.tag(of: id) == nil)
        #expect(try lab.store.flowCount(inRecording: session.id) == 0)
    }

    @Test func twoPhonesRecordedAtOnceEachTakeTheirOwn() throws {
        let lab = try Lab()
        let a = try lab.start(phoneA), b = try lab.start(phoneB)
        #expect(try lab.tag(of: lab.write(from: "10.77.0.2", port: 40000)) == a.id)
        #expect(try lab.tag(of: lab.write(from: "fd77::3", port: 40001)) == b.id)
        #expect(try lab.store.openRecordings().map(\.id) == [a.id, b.id])
        #expect(try lab.store.openRecording() == nil)
        #expect(try lab.store.openRecording(phone: "iphone")?.id == b.id)
    }

    /// The relay asks which recording a connection belongs to before the flow is written: the
    /// answer is the one tagging gives that connection's flow.
    @Test func theRecordingOfAConnectionIsTheOneItsFlowIsTaggedWith() throws {
        let lab = try Lab()
        let a = try lab.start(phoneA), b = try lab.start(phoneB)
        for (client, port, expected) in [("10.77.0.2", 41000, a.id), ("fd77::3", 41001, b.id), ("10.77.0.1", 41002, nil)]
            as [(String, UInt16, Int64?)] {
            #expect(try lab.store.openRecording(client: IPAddress(client)!)?.id == expected)
            #expect(try lab.tag(of: lab.write(from: client, port: port)) == expected)
        }
        _ = try lab.store.endRecording(id: a.id, at: at(3))
        #expect(try lab.store.openRecording(client: IPAddress("10.77.0.2")!) == nil)
    }

    @Test func anUntaggedFlowOfAPhoneIsTaggedWhenWrittenAgainDuringItsRecording() throws {
        let lab = try Lab()
        let id = try lab.write(from: "10.77.0.2", port: 40000)
        let session = try lab.start(phoneA, at: 3)
        let state = FlowState(
            key: FlowKey(proto: .tcp, Endpoint(address: IPAddress("10.77.0.2")!, port: 40000),
                         Endpoint(address: IPAddress("93.184.216.34")!, port: 443)),
            firstSeen: Instant(at(2)), lastSeen: Instant(at(4)))
        try lab.store.write(
            HistoryBatch(flows: [FlowUpsert(handle: 1, rowID: id, state: state, client: IPAddress("10.77.0.2")!)]),
            captureRun: lab.capture.id)
        #expect(try lab.tag(of: id) == session.id)
    }

    @Test func anImportNeverTagsIntoAnOpenRecording() throws {
        let lab = try Lab()
        let session = try lab.start(phoneA)
        #expect(try lab.tag(of: lab.write(from: "10.77.0.2", port: 40000, tagging: .none)) == nil)
        #expect(try lab.store.flowCount(inRecording: session.id) == 0)
    }

    @Test func onePhoneHasOneOpenRecordingAndTheWholeTapExcludesPhones() throws {
        let lab = try Lab()
        let a = try lab.start(phoneA)
        #expect(throws: AuditStoreError.sessionAlreadyOpen(a.id)) { try lab.start(phoneA, at: 2) }
        // A recording of the whole tap would take the other phone's flows too.
        #expect(throws: AuditStoreError.sessionAlreadyOpen(a.id)) { try lab.start(nil, at: 2) }
        _ = try lab.store.endRecording(id: a.id, at: at(3))
        let whole = try lab.start(nil, at: 4)
        #expect(throws: AuditStoreError.sessionAlreadyOpen(whole.id)) { try lab.start(phoneB, at: 5) }
    }

    @Test func aSessionKeepsItsPhoneAsItWasAtTheStart() throws {
        let lab = try Lab()
        let session = try lab.start(phoneA)
        #expect(session.phone == phoneA)
        _ = try lab.store.endRecording(id: session.id, at: at(2))
        try lab.store.removePhone(named: "pixel")
        #expect(try lab.store.phones().map(\.phone.name) == ["iphone"])
        #expect(try lab.store.recording(id: session.id)?.phone == phoneA)
    }

    @Test func aRecordedPhoneIsNotRemovedAndAddressesAreOnePhonesOnly() throws {
        let lab = try Lab()
        let session = try lab.start(phoneB)
        #expect(throws: PhoneStoreError.recording("iphone", session: session.id)) { try lab.store.removePhone(named: "iphone") }
        let clash = Phone(name: "other", ipv4: IPAddress("10.77.0.9")!, ipv6: phoneA.ipv6, publicKey: "x", keyFingerprint: "y")
        #expect(throws: PhoneStoreError.addressTaken(phoneA.ipv6, by: "pixel")) { try lab.store.addPhone(clash, at: at(3)) }
        #expect(throws: PhoneStoreError.nameTaken("pixel")) { try lab.store.addPhone(phoneA, at: at(3)) }
        #expect(throws: PhoneStoreError.notFound("nobody")) { try lab.store.removePhone(named: "nobody") }
    }

    @Test func markersWithoutAPhoneGoToTheOnlyRecordingAndAreRefusedWhenSeveralAre() throws {
        let lab = try Lab()
        let a = try lab.start(phoneA)
        guard case .placed(_, let first) = try lab.store.addMarkerToOpenSession(.consentGiven, at: at(2)) else {
            Issue.record("the only recording was not marked")
            return
        }
        #expect(first.session.id == a.id)
        let b = try lab.start(phoneB, at: 3)
        let outcome = try lab.store.addMarkerToOpenSession(.loggedIn, at: at(4))
        guard case .severalOpen(let open) = outcome else {
            Issue.record("marked \(outcome) with two recordings open")
            return
        }
        #expect(open.map(\.session.id) == [a.id, b.id])
        guard case .placed(let marker, let where_) = try lab.store.addMarkerToOpenSession(.loggedIn, phone: "iphone", at: at(4)) else {
            Issue.record("the named phone's recording was not marked")
            return
        }
        #expect(where_.session.id == b.id && marker.sessionID == b.id)
        #expect(try lab.store.markers(forSession: a.id).map(\.kind) == [.consentGiven])
    }
}

/// A history from before phones: its sessions and tags stay, and it takes phones afterwards.
@Suite struct PhoneMigrationTests {
    static func sqlite3(_ path: String, _ command: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, command]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    @Test func aSinglePhoneDatabaseMigratesKeepingSessionsAndTags() throws {
        let db = TemporaryDatabase()
        let before = try #require(Schema.migrations.firstIndex { $0.contains("CREATE TABLE phones") })
        let old = try History(path: db.path, migratingTo: before)
        let project = try old.createAuditProject(projectDraft(), at: at(0))
        let capture = try old.beginCaptureRun(toolVersion: "0.9", input: "tun:tv0", at: at(0))
        let session = try old.access { db -> Int64 in
            try db.execute("""
                INSERT INTO audit_sessions (project_id, kind, app_version, build_number, device_model, os_version,
                    tool_version, inspection_enabled, ca_trusted, started_at, ended_at, notes)
                VALUES (\(project.id), 1, '2.4.1', '310', 'Pixel 8', 'Android 15', '0.9', 0, 0, 1, NULL, '')
                """)
            let id = db.lastInsertedRowID
            try db.execute("""
                INSERT INTO flows (session, protocol, a_address, a_port, b_address, b_port, first_seen, last_seen, audit_session_id)
                VALUES (\(capture.id), 17, '10.77.0.2', 5353, '10.0.0.1', 53, 1, 2, \(id))
                """)
            return id
        }
        let migrated = try db.open()
        #expect(try migrated.schemaVersion == History.currentSchemaVersion)
        // sqlite3 as an independent reading of the migrated file.
        let schema = try Self.sqlite3(db.path, ".schema audit_sessions")
        #expect(schema.contains("CREATE UNIQUE INDEX audit_sessions_open_per_phone ON audit_sessions (IFNULL(phone_name, '')) WHERE ended_at IS NULL;"))
        #expect(!schema.contains("audit_sessions_single_open"))
        #expect(try Self.sqlite3(db.path, "SELECT COUNT(*) FROM flows WHERE audit_session_id = \(session)") == "1\n")
        let open = try #require(try migrated.openRecording())
        #expect(open.id == session && open.phone == nil)
        #expect(try migrated.flowCount(inRecording: session) == 1)
        // The old open session records the whole tap: a phone's waits for it.
        try migrated.addPhone(phoneA, at: at(3))
        var draft = sessionDraft(project: project.id)
        draft.phone = phoneA
        #expect(throws: AuditStoreError.sessionAlreadyOpen(session)) { try migrated.startRecording(draft, at: at(4)) }
        _ = try migrated.endRecording(id: session, at: at(5))
        #expect(try migrated.startRecording(draft, at: at(6)).phone == phoneA)
    }
}
