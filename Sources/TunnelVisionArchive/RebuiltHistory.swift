import Foundation

/// Recordings of the archive written into a history of their own (a temporary file the store
/// created), so that the store's reads and the audit's rules judge them exactly as they judge a
/// gateway's: a diff across gateways is the local diff, run on the two recordings side by side.
public enum RebuiltHistory {
    /// Writes the recordings and answers the id each got. A recording keeps its gateway's number
    /// unless an earlier one took it; a recording's flows are moved past
    /// the ones written before only when their numbers meet.
    public static func write(_ extracts: [RecordingExtract], intoHistoryAt path: String) throws(ArchiveError) -> [Int64] {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var current: [RecordingExtract] = []
        for extract in extracts { current.append(try RecordingForward.current(extract, scratchFolder: folder)) }
        return try writeRows(current, intoHistoryAt: path)
    }

    /// The rows as they are, into a history of their schema.
    static func writeRows(_ extracts: [RecordingExtract], intoHistoryAt path: String) throws(ArchiveError) -> [Int64] {
        let connection = try HistoryRowConnection(path: path, readOnly: false)
        // The flows' capture sessions stay on their gateways: the archive keeps recordings.
        try connection.execute("PRAGMA foreign_keys = OFF")
        try connection.execute("BEGIN IMMEDIATE")
        var projects: [Int64: Int64] = [:], recordingIDs: [Int64] = [], takenFlows = Set<Int64>()
        for extract in extracts {
            let archiveProject = extract.project.integer("id") ?? 0
            let projectID: Int64
            if let known = projects[archiveProject] {
                projectID = known
            } else {
                projectID = Int64(projects.count + 1)
                projects[archiveProject] = projectID
                try connection.insert(replacing(extract.project, ["id": .integer(projectID)]), into: "audit_projects")
                for entry in extract.allowlist {
                    try connection.insert(replacing(entry, ["project_id": .integer(projectID)]), into: "audit_allowlist")
                }
            }
            let wanted = extract.localID
            let recordingID = recordingIDs.contains(wanted) ? (recordingIDs.max() ?? 0) + 1 : wanted
            recordingIDs.append(recordingID)
            try connection.insert(
                replacing(extract.recording, ["id": .integer(recordingID), "project_id": .integer(projectID)]), into: "audit_sessions")
            for marker in extract.markers {
                try connection.insert(
                    replacing(dropping("id", from: marker), ["session_id": .integer(recordingID)]), into: "audit_markers")
            }
            // Appended after the flows already written, as one would merge two histories by hand,
            // when any of its numbers is taken; kept otherwise.
            let originals = extract.flows.compactMap { $0.integer("id") }
            let offset = originals.contains(where: takenFlows.contains) ? (takenFlows.max() ?? 0) : 0
            var flowIDs: [Int64: Int64] = [:]
            for flow in extract.flows {
                let original = flow.integer("id") ?? 0
                let id = original + offset
                takenFlows.insert(id)
                flowIDs[original] = id
                try connection.insert(
                    replacing(flow, ["id": .integer(id), "audit_session_id": .integer(recordingID)]), into: "flows")
            }
            for relay in extract.relays {
                guard let flow = relay.integer("flow_id").flatMap({ flowIDs[$0] }) else { continue }
                try connection.insert(replacing(relay, ["flow_id": .integer(flow)]), into: "flow_relay")
            }
            for request in extract.requests {
                guard let flow = request.integer("flow_id").flatMap({ flowIDs[$0] }) else { continue }
                try connection.insert(replacing(request, ["flow_id": .integer(flow)]), into: "flow_request")
            }
        }
        try connection.execute("COMMIT")
        return recordingIDs
    }

    private static func replacing(_ row: HistoryRow, _ values: [String: RowValue]) -> HistoryRow {
        HistoryRow(columns: row.columns.map { column in (column.name, values[column.name] ?? column.value) })
    }

    private static func dropping(_ name: String, from row: HistoryRow) -> HistoryRow {
        HistoryRow(columns: row.columns.filter { $0.name != name })
    }
}
