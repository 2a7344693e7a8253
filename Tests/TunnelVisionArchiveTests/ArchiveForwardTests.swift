import EvidenceSeeding
import Foundation
import Testing
@testable import TunnelVisionArchive
import TunnelVisionAudit
import TunnelVisionModel
@testable import TunnelVisionStore

@Suite("A recording published by a gateway of an older history schema")
struct ArchiveForwardTests {
    /// The schema a gateway ran before a flow's capture run got its own name (`session` then).
    static var beforeTheRename: Int {
        Schema.migrations.firstIndex { $0.contains("RENAME COLUMN session TO capture_run") } ?? 0
    }

    /// The row as a history of `version` holds it: the rename undone, the columns it did not
    /// have yet left out. Read from a history the store made at that version, not written out here.
    static func older(_ row: HistoryRow, table: String, schemaAt path: String) throws -> HistoryRow {
        let columns = Set(try HistoryRowConnection(path: path, readOnly: true).rows("PRAGMA table_info(\(table))").compactMap { $0.text("name") })
        return HistoryRow(columns: row.columns.compactMap { column in
            let name = column.name == "capture_run" ? "session" : column.name
            return columns.contains(name) ? (name, column.value) : nil
        })
    }

    static func judged(_ id: Int64, in history: History, project projectID: Int64) throws -> (Recording, [StoredFlow], SessionFindings) {
        let recording = try #require(try history.recording(id: id))
        let project = try #require(try history.auditProject(id: projectID))
        let flows = try history.reading { try $0.flows(inRecording: id) }
        let findings = FindingsClassifier.classify(
            flows: flows, project: project, session: recording, markers: try history.markers(forSession: id),
            policy: try #require(FindingsPolicy(minimumTLSVersion: .tls12)))
        return (recording, flows, findings)
    }

    @Test("Its flows, findings and a diff against a recording of today's schema read as the gateway's own")
    func olderRowsForward() throws {
        let folder = try GatewayRecording.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let seed = try EvidenceSeed.make(
            in: folder.appendingPathComponent("gateway"), plan: .init(flows: 12, distinctHostFindings: 3, keepsKeys: false))
        let extract = try GatewayHistory(path: seed.databasePath).extract(recordingID: seed.sessionID, publishKeyLogs: false)

        let version = Self.beforeTheRename
        try #require(version > 0 && version < History.currentSchemaVersion)
        let olderPath = folder.appendingPathComponent("older.sqlite").path
        _ = try History(path: olderPath, migratingTo: version)
        let shaped = RecordingExtract(
            recording: try Self.older(extract.recording, table: "audit_sessions", schemaAt: olderPath),
            project: extract.project,
            allowlist: try extract.allowlist.map { try Self.older($0, table: "audit_allowlist", schemaAt: olderPath) },
            markers: try extract.markers.map { try Self.older($0, table: "audit_markers", schemaAt: olderPath) },
            flows: try extract.flows.map { try Self.older($0, table: "flows", schemaAt: olderPath) },
            relays: try extract.relays.map { try Self.older($0, table: "flow_relay", schemaAt: olderPath) },
            historySchema: version)
        // Through the archive's JSON, as a reader receives it.
        let received = RecordingExtract(
            recording: RowJSON.row(RowJSON.text(shaped.recording))!, project: shaped.project, allowlist: shaped.allowlist,
            markers: shaped.markers.map { RowJSON.row(RowJSON.text($0))! }, flows: shaped.flows.map { RowJSON.row(RowJSON.text($0))! },
            relays: shaped.relays.map { RowJSON.row(RowJSON.text($0))! }, historySchema: version)
        #expect(received.flows.first?.integer("session") != nil && received.flows.first?.integer("capture_run") == nil)

        // Beside a recording of today's schema, as a diff across two gateways has them.
        let mixedPath = folder.appendingPathComponent("mixed.sqlite").path
        _ = try History(path: mixedPath)
        let mixedIDs = try RebuiltHistory.write([received, extract], intoHistoryAt: mixedPath)
        let samePath = folder.appendingPathComponent("same.sqlite").path
        _ = try History(path: samePath)
        let sameIDs = try RebuiltHistory.write([extract, extract], intoHistoryAt: samePath)
        #expect(mixedIDs == sameIDs)

        let gateway = try History(path: seed.databasePath)
        let (recording, flows, findings) = try Self.judged(seed.sessionID, in: gateway, project: extract.project.integer("id") ?? 0)
        let mixed = try History(path: mixedPath), same = try History(path: samePath)
        let (olderRecording, olderFlows, olderFindings) = try Self.judged(mixedIDs[0], in: mixed, project: 1)
        #expect(olderRecording == recording)
        #expect(olderFlows == flows && flows.count == 12)
        #expect(olderFindings == findings && !findings.findings.isEmpty)

        let (laterRecording, laterFlows, _) = try Self.judged(mixedIDs[1], in: mixed, project: 1)
        let (sameEarlier, sameEarlierFlows, _) = try Self.judged(sameIDs[0], in: same, project: 1)
        let (sameLater, sameLaterFlows, _) = try Self.judged(sameIDs[1], in: same, project: 1)
        let project = try #require(try mixed.auditProject(id: 1))
        let diff = try ReleaseDiff(between: olderRecording, flows: olderFlows, and: laterRecording, flows: laterFlows, project: project)
        let expected = try ReleaseDiff(between: sameEarlier, flows: sameEarlierFlows, and: sameLater, flows: sameLaterFlows, project: project)
        #expect(diff == expected)
    }
}
