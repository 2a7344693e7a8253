import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionStore

/// The change marker a live view reads from: every insert and update raises it, and a read
/// after a marker gives exactly the session's flows written since.
struct FlowChangeMarkerTests {
    @Test func aReadAfterAMarkerGivesOnlyTheFlowsInsertedOrUpdatedSince() throws {
        let store = try TemporaryDatabase().open()
        let (capture, _, session) = try store.openRecordingOnACaptureRun()
        let ids = try store.insert((0..<5).map { udpFlow(port: UInt16(1_000 + $0), at: at(2 + Double($0))) }, captureRun: capture.id)
        let all = try store.reading { try $0.flowsChanged(inRecording: session.id, after: .start) }
        #expect(all.flows.map(\.id) == ids)

        let marker = try store.reading { try $0.flowChangeMarker() }
        #expect(marker == all.next)
        #expect(try store.reading { try $0.flowsChanged(inRecording: session.id, after: marker) }.flows.isEmpty)

        var later = udpFlow(port: 1_002, at: at(4))
        later.lastSeen = Instant(at(20))
        later.packetCount = 9
        try store.write(HistoryBatch(flows: [FlowUpsert(handle: 0, rowID: ids[2], state: later)]), captureRun: capture.id)
        let added = try store.insert([udpFlow(port: 2_000, at: at(21))], captureRun: capture.id)
        let changed = try store.reading { try $0.flowsChanged(inRecording: session.id, after: marker) }
        #expect(changed.flows.map(\.id) == [ids[2], added[0]], "the updated flow, then the new one")
        #expect(changed.flows.first?.packetCount == 9)
        #expect(try store.reading { try $0.flowsChanged(inRecording: session.id, after: changed.next) }.flows.isEmpty)
    }

    @Test func theReadWalksTheMarkersIndexNotTheSession() throws {
        let store = try TemporaryDatabase().open()
        let plan = try store.access { db in
            try db.statement("EXPLAIN QUERY PLAN " + HistorySnapshot.flowsChangedSQL).bind(.integer(0), .integer(1)).rows { $0.text(3) }
        }
        #expect(plan.first == "SEARCH flows USING INDEX flows_changed (changed>?)", "\(plan)")
        #expect(!plan.contains { $0.contains("flows_audit_session") || $0.contains("SCAN flows") }, "\(plan)")
    }

    @Test func flowsOfAnotherSessionMoveTheMarkerOnButAreNotGiven() throws {
        let store = try TemporaryDatabase().open()
        let capture = try store.beginCaptureRun(toolVersion: "t", input: "i", at: at(0))
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        let first = try store.startRecording(sessionDraft(project: project.id), at: at(1))
        _ = try store.insert([udpFlow(port: 1, at: at(2))], captureRun: capture.id)
        _ = try store.endRecording(id: first.id, at: at(3))
        let marker = try store.reading { try $0.flowChangeMarker() }
        let untagged = try store.insert([udpFlow(port: 2, at: at(4))], captureRun: capture.id)
        #expect(untagged.count == 1)
        let read = try store.reading { try $0.flowsChanged(inRecording: first.id, after: marker) }
        #expect(read.flows.isEmpty)
        #expect(read.next.value > marker.value)
    }

    @Test func aHistoryWrittenBeforeTheMarkerGivesEveryFlowOnceMigrated() throws {
        let db = TemporaryDatabase()
        let step = try #require(Schema.migrations.firstIndex { $0.contains("flows_changed") })
        let old = try History(path: db.path, migratingTo: step)
        let capture = try old.beginCaptureRun(toolVersion: "0.1", input: "tun:tv0", at: at(0))
        // Rows as the previous version wrote them: its recordings had no phone, its upserts knew
        // no marker (today's writes name columns of later steps).
        let sessionID: Int64 = 1
        try old.access { db in
            try db.execute("INSERT INTO audit_projects (id, name, created_at) VALUES (1, 'Acme', 0)")
            try db.execute("""
                INSERT INTO audit_sessions (id, project_id, kind, device_model, os_version, tool_version,
                    inspection_enabled, ca_trusted, started_at)
                VALUES (1, 1, 0, 'phone', 'os', '0.1', 0, 0, 1)
                """)
            for port in 10..<13 {
                try db.execute("""
                    INSERT INTO flows (session, protocol, a_address, a_port, b_address, b_port, first_seen, last_seen, audit_session_id)
                    VALUES (\(capture.id), 17, '10.77.0.2', \(port), '10.0.0.1', 53, \(port), \(port), \(sessionID))
                    """)
            }
        }
        // Read with that step's own SQL: today's flow reads name columns of later steps too.
        let ids = try old.access { db in
            try db.statement("SELECT id FROM flows WHERE audit_session_id = ? ORDER BY id").bind(.integer(sessionID)).rows { $0.int64(0) }
        }
        #expect(ids.count == 3)
        let migrated = try db.open()
        #expect(try migrated.schemaVersion == History.currentSchemaVersion)
        let read = try migrated.reading { try $0.flowsChanged(inRecording: sessionID, after: .start) }
        #expect(read.flows.map(\.id) == ids)
        let more = try migrated.insert([udpFlow(port: 99, at: at(9))], captureRun: capture.id)
        #expect(try migrated.reading { try $0.flowsChanged(inRecording: sessionID, after: read.next) }.flows.map(\.id) == more)
    }
}
