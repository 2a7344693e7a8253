import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionStore

/// Which audit session a flow belongs to: read in the same statement that writes the flow.
@Suite struct TaggingTests {
    struct Lab {
        let db = TemporaryDatabase()
        let store: History
        let project: AuditProject
        let capture: CaptureRun

        init() throws {
            store = try db.open()
            project = try store.createAuditProject(projectDraft(), at: at(0))
            capture = try store.beginCaptureRun(toolVersion: "test", input: "test", at: at(0))
        }

        func tag(of id: Int64) throws -> Int64? {
            try store.access { db in
                try db.statement("SELECT audit_session_id FROM flows WHERE id = ?").bind(.integer(id)).firstRow { $0.int64OrNil(0) } ?? nil
            }
        }

        func update(_ id: Int64, _ state: FlowState) throws {
            try store.write(HistoryBatch(flows: [FlowUpsert(handle: 1, rowID: id, state: state)]), captureRun: capture.id)
        }
    }

    @Test func flowFirstWrittenWhileASessionIsOpenIsTagged() throws {
        let lab = try Lab()
        let session = try lab.store.startRecording(sessionDraft(project: lab.project.id), at: at(1))
        let id = try lab.store.insert([udpFlow(port: 1000, at: at(2))], captureRun: lab.capture.id)[0]
        #expect(try lab.tag(of: id) == session.id)
        #expect(try lab.store.flows(inRecording: session.id, limit: 10).map(\.id) == [id])
    }

    @Test func flowThatBeganBeforeAndIsFlushedDuringIsTaggedThen() throws {
        let lab = try Lab()
        let id = try lab.store.insert([udpFlow(port: 1000, at: at(1))], captureRun: lab.capture.id)[0]
        #expect(try lab.tag(of: id) == nil)
        let session = try lab.store.startRecording(sessionDraft(project: lab.project.id), at: at(2))
        var state = udpFlow(port: 1000, at: at(1))
        state.lastSeen = Instant(at(3))
        state.packetCount = 2
        try lab.update(id, state)
        #expect(try lab.tag(of: id) == session.id)
    }

    @Test func aTaggedFlowNeverChangesSession() throws {
        let lab = try Lab()
        let first = try lab.store.startRecording(sessionDraft(project: lab.project.id), at: at(1))
        let id = try lab.store.insert([udpFlow(port: 1000, at: at(2))], captureRun: lab.capture.id)[0]
        _ = try lab.store.endRecording(id: first.id, at: at(3))
        let second = try lab.store.startRecording(sessionDraft(project: lab.project.id), at: at(4))
        var state = udpFlow(port: 1000, at: at(2))
        state.lastSeen = Instant(at(5))
        try lab.update(id, state)
        #expect(try lab.tag(of: id) == first.id)
        #expect(try lab.store.flowCount(inRecording: second.id) == 0)
    }

    @Test func flowOutsideAnySessionIsNotTagged() throws {
        let lab = try Lab()
        let session = try lab.store.startRecording(sessionDraft(project: lab.project.id), at: at(1))
        _ = try lab.store.endRecording(id: session.id, at: at(2))
        let id = try lab.store.insert([udpFlow(port: 1000, at: at(3))], captureRun: lab.capture.id)[0]
        #expect(try lab.tag(of: id) == nil)
        #expect(try lab.store.flowCount(inRecording: session.id) == 0)
    }

    @Test func deletingASessionUntagsItsFlowsAndRemovesItsMarkers() throws {
        let lab = try Lab()
        let session = try lab.store.startRecording(sessionDraft(project: lab.project.id), at: at(1))
        _ = try lab.store.addMarkerToOpenSession(.consentGiven, at: at(2))
        let ids = try lab.store.insert([udpFlow(port: 1, at: at(3)), udpFlow(port: 2, at: at(4))], captureRun: lab.capture.id)
        try lab.store.deleteRecording(id: session.id)
        #expect(try ids.map(lab.tag) == [nil, nil])
        #expect(try lab.store.markers(forSession: session.id).isEmpty)
        #expect(try lab.store.recording(id: session.id) == nil)
        #expect(try lab.store.flow(id: ids[0]) != nil)
        // Tagging stopped with it: a flow written now belongs to nothing.
        let later = try lab.store.insert([udpFlow(port: 3, at: at(5))], captureRun: lab.capture.id)[0]
        #expect(try lab.tag(of: later) == nil)
    }

    @Test func deletingAProjectDoesTheSameForAllItsSessions() throws {
        let lab = try Lab()
        var flowIDs: [Int64] = []
        var sessionIDs: [Int64] = []
        for start in [10.0, 20.0] {
            let session = try lab.store.startRecording(sessionDraft(project: lab.project.id), at: at(start))
            _ = try lab.store.addMarkerToOpenSession(.loggedIn, at: at(start + 1))
            flowIDs += try lab.store.insert([udpFlow(port: UInt16(start), at: at(start + 2))], captureRun: lab.capture.id)
            _ = try lab.store.endRecording(id: session.id, at: at(start + 3))
            sessionIDs.append(session.id)
        }
        try lab.store.deleteAuditProject(id: lab.project.id)
        #expect(try flowIDs.map(lab.tag) == [nil, nil])
        for id in sessionIDs {
            #expect(try lab.store.recording(id: id) == nil)
            #expect(try lab.store.markers(forSession: id).isEmpty)
        }
        #expect(try lab.store.auditProject(id: lab.project.id) == nil)
    }
}
