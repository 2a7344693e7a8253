import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionStore

/// A recording's flows handed over one at a time (findings, diff, a live view's first read):
/// the order of `flows(inRecording:)`, read along the recording's index without a sort, so that
/// nothing the size of the recording is held or sorted.
struct RecordingFlowsWalkTests {
    @Test func theWalkGivesTheRecordingsFlowsInTheOrderTheListGivesThem() throws {
        let store = try TemporaryDatabase().open()
        let (capture, _, session) = try store.openRecordingOnACaptureRun()
        // Inserted out of the order they happened, two of them in the same instant.
        let ids = try store.insert(
            [udpFlow(port: 3, at: at(9)), udpFlow(port: 1, at: at(4)), udpFlow(port: 2, at: at(4)), udpFlow(port: 4, at: at(2))],
            captureRun: capture.id)
        _ = try store.endRecording(id: session.id, at: at(10))
        _ = try store.insert([udpFlow(port: 5, at: at(11))], captureRun: capture.id)

        var walked: [StoredFlow] = []
        try store.reading { snapshot in try snapshot.forEachFlow(inRecording: session.id) { walked.append($0) } }
        let listed = try store.flows(inRecording: session.id)
        #expect(walked == listed)
        #expect(walked.map(\.id) == [ids[3], ids[1], ids[2], ids[0]], "by first packet, then id; not the other recording's")
    }

    @Test func theWalkReadsAlongTheRecordingsIndexWithoutASort() throws {
        let store = try TemporaryDatabase().open()
        let plan = try store.access { db in
            try db.statement("EXPLAIN QUERY PLAN " + HistorySnapshot.recordingFlowsSQL).bind(.integer(1)).rows { $0.text(3) }
        }
        #expect(plan.first == "SEARCH flows USING INDEX flows_audit_session (audit_session_id=?)", "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN") }, "\(plan)")
        // A flow's relay facts and requests are looked up by its key, one search each.
        #expect(plan.dropFirst().allSatisfy { $0.hasPrefix("CORRELATED SCALAR SUBQUERY") || $0.contains("PRIMARY KEY") }, "\(plan)")
    }
}
