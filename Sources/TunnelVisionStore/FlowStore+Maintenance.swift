import Foundation
import TunnelVisionModel

/// Capture file records, retention and clearing.
extension FlowStore {
    /// Inserts the file's record, or replaces it (a file is recorded when opened and again when closed).
    public func recordCaptureFile(_ file: CaptureFile) throws {
        try write { db in
            try db.statement("INSERT OR REPLACE INTO capture_files (sequence, path, created_at, closed_at, bytes) VALUES (?, ?, ?, ?, ?)")
                .bind(
                    .integer(Int64(file.sequence)), .text(file.path), .date(file.createdAt), .optionalDate(file.closedAt),
                    .integer(Int64(clamping: file.bytes)))
                .run()
        }
    }

    /// Forgets a file's record once retention deleted the file; packets pointing into it keep
    /// their location, which now names a missing file.
    public func deleteCaptureFile(sequence: UInt32) throws {
        try write { db in
            try db.statement("DELETE FROM capture_files WHERE sequence = ?").bind(.integer(Int64(sequence))).run()
        }
    }

    /// The highest sequence the history has ever pointed at (0 when none): a new file goes above it.
    public func highestCaptureFileSequence() throws -> UInt32 {
        try access { db in
            let value = try db.statement("""
                SELECT MAX(m) FROM (SELECT MAX(sequence) AS m FROM capture_files UNION ALL SELECT MAX(file_seq) FROM packet_runs)
                """).firstRow { $0.int64OrNil(0) } ?? nil
            return UInt32(truncatingIfNeeded: value ?? 0)
        }
    }

    /// Deletes flows (with their packets and DNS answers) last seen before the instant, except
    /// those tagged with an audit session: evidence stays until its session is deleted.
    /// Returns how many flows went.
    @discardableResult
    public func prune(before date: Date) throws -> Int {
        try write { db in
            try db.statement("DELETE FROM flows WHERE last_seen < ? AND audit_session_id IS NULL").bind(.date(date)).run()
            let removed = db.changes
            try db.statement("DELETE FROM dns_answers WHERE flow_id IS NULL AND ts < ?").bind(.date(date)).run()
            try db.execute("""
                DELETE FROM capture_sessions WHERE ended_at IS NOT NULL
                    AND NOT EXISTS (SELECT 1 FROM flows WHERE flows.session = capture_sessions.id)
                """)
            return removed
        }
    }

    /// Empties the history, keeping projects and sessions (and so what a session declared).
    public func clearAll() throws {
        try write { db in
            try db.execute("DELETE FROM packet_runs; DELETE FROM dns_answers; DELETE FROM flows; DELETE FROM capture_files;")
            try db.execute("DELETE FROM capture_sessions WHERE ended_at IS NOT NULL")
        }
    }
}

extension FlowStore {
    /// `PRAGMA quick_check`: the pages, indexes and their rows agree. Damage is `corrupt`, so that
    /// nothing is read out of a history that would answer with the wrong rows.
    public func checkIntegrity() throws {
        let verdicts = try access { db in try db.statement("PRAGMA quick_check").rows { $0.text(0) } }
        guard verdicts == ["ok"] else { throw HistoryError.corrupt(path: path) }
    }
}
