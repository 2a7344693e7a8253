import Foundation
import TunnelVisionModel

/// Capture file records, retention and clearing.
extension History {
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

    /// Appends a link to the chain over the capture files, made by `make` from the last link (nil:
    /// none yet) in the same transaction: a live daemon and an import beside it never fork the chain.
    public func appendCaptureSeal(_ make: (CaptureSeal?) throws -> CaptureSeal) throws {
        try write { db in
            let last = try db.statement("SELECT \(CaptureSeal.columns) FROM capture_seals ORDER BY position DESC LIMIT 1")
                .firstRow(CaptureSeal.init(row:))
            let seal = try make(last)
            try db.statement("""
                INSERT INTO capture_seals (position, sequence, file_name, bytes, sha256, origin, sealed_at, previous, signature)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
                .bind(
                    .integer(seal.position), .integer(Int64(seal.sequence)), .text(seal.fileName), .integer(Int64(clamping: seal.bytes)),
                    .text(seal.sha256), .text(seal.origin.rawValue), .date(seal.sealedAt), .text(seal.previous), .text(seal.signature))
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
                    AND NOT EXISTS (SELECT 1 FROM flows WHERE flows.capture_run = capture_sessions.id)
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

extension History {
    /// `PRAGMA quick_check`: the pages, indexes and their rows agree. Damage is `corrupt`, so that
    /// nothing is read out of a history that would answer with the wrong rows.
    public func checkIntegrity() throws {
        let verdicts = try access { db in try db.statement("PRAGMA quick_check").rows { $0.text(0) } }
        guard verdicts == ["ok"] else { throw HistoryError.corrupt(path: path) }
    }
}

extension CaptureSeal {
    static let columns = "position, sequence, file_name, bytes, sha256, origin, sealed_at, previous, signature"

    /// An origin this build does not know reads as recovered: the weaker claim.
    init(row: Row) {
        self.init(position: row.int64(0), sequence: UInt32(truncatingIfNeeded: row.int64(1)), fileName: row.text(2),
                  bytes: UInt64(clamping: row.int64(3)), sha256: row.text(4), origin: Origin(rawValue: row.text(5)) ?? .recovered,
                  sealedAt: row.date(6), previous: row.text(7), signature: row.text(8))
    }
}
