import CSQLite
import Foundation
import TunnelVisionModel

/// One column value as SQLite stored it.
public enum RowValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// One row: its columns by name, in the table's order.
public struct HistoryRow: Sendable, Hashable {
    public var columns: [(name: String, value: RowValue)]

    public init(columns: [(name: String, value: RowValue)]) { self.columns = columns }

    public subscript(name: String) -> RowValue? { columns.first { $0.name == name }?.value }

    public func integer(_ name: String) -> Int64? {
        if case .integer(let value) = self[name] { return value }
        return nil
    }

    public func text(_ name: String) -> String? {
        if case .text(let value) = self[name] { return value }
        return nil
    }

    public static func == (left: HistoryRow, right: HistoryRow) -> Bool {
        left.columns.map(\.name) == right.columns.map(\.name) && left.columns.map(\.value) == right.columns.map(\.value)
    }

    public func hash(into hasher: inout Hasher) {
        for column in columns { hasher.combine(column.name); hasher.combine(column.value) }
    }
}

/// A raw SQLite connection for whole rows, whatever columns the history's schema has: the
/// archive carries rows, not the store's reading of them, so that a reader rebuilds a history
/// the store's own code then reads. Read-only on a gateway's history; read-write only on a
/// history the archive rebuilds in a temporary folder.
final class HistoryRowConnection {
    private var handle: OpaquePointer?

    init(path: String, readOnly: Bool) throws(ArchiveError) {
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOFOLLOW
        var db: OpaquePointer?
        let result = sqlite3_open_v2(path, &db, flags, nil)
        handle = db
        guard result == SQLITE_OK else { throw failure() }
        sqlite3_busy_timeout(db, 5_000)
        try execute("PRAGMA trusted_schema = OFF")
    }

    deinit { sqlite3_close_v2(handle) }

    private func failure() -> ArchiveError {
        .history(handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory")
    }

    func execute(_ sql: String) throws(ArchiveError) {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw failure() }
    }

    /// Every row the query answers, with its column names.
    func rows(_ sql: String, _ parameters: [Int64] = []) throws(ArchiveError) -> [HistoryRow] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { throw failure() }
        defer { sqlite3_finalize(statement) }
        for (index, parameter) in parameters.enumerated() { sqlite3_bind_int64(statement, Int32(index + 1), parameter) }
        let count = sqlite3_column_count(statement)
        let names = (0..<count).map { String(cString: sqlite3_column_name(statement, $0)) }
        var rows: [HistoryRow] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw failure() }
            rows.append(HistoryRow(columns: (0..<count).map { column in
                (names[Int(column)], value(statement, column))
            }))
        }
        return rows
    }

    private func value(_ statement: OpaquePointer?, _ column: Int32) -> RowValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT: return .text(String(cString: sqlite3_column_text(statement, column)))
        case SQLITE_BLOB:
            let length = Int(sqlite3_column_bytes(statement, column))
            guard length > 0, let bytes = sqlite3_column_blob(statement, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: length)))
        default: return .null
        }
    }

    /// Inserts a row as it was read; a column this history does not have is refused by SQLite
    /// and reported as a row of a newer gateway.
    func insert(_ row: HistoryRow, into table: String) throws(ArchiveError) {
        // The names come from the archive, which any gateway writes to: only a column name of
        // the history's own form goes into the statement's text.
        for column in row.columns where column.name.isEmpty || !column.name.utf8.allSatisfy({ $0 == 95 || (97...122).contains($0) || (48...57).contains($0) }) {
            throw .foreignRow(table: table, detail: "a column named \(JSONText.quoted(column.name))")
        }
        let names = row.columns.map { "\"\($0.name)\"" }.joined(separator: ", ")
        let marks = row.columns.indices.map { "?\($0 + 1)" }.joined(separator: ", ")
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, "INSERT INTO \(table) (\(names)) VALUES (\(marks))", -1, &statement, nil) == SQLITE_OK
        else { throw .foreignRow(table: table, detail: String(cString: sqlite3_errmsg(handle))) }
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (index, column) in row.columns.enumerated() {
            let position = Int32(index + 1)
            switch column.value {
            case .null: sqlite3_bind_null(statement, position)
            case .integer(let value): sqlite3_bind_int64(statement, position, value)
            case .real(let value): sqlite3_bind_double(statement, position, value)
            case .text(let value): sqlite3_bind_text(statement, position, value, -1, transient)
            case .blob(let bytes): sqlite3_bind_blob(statement, position, bytes, Int32(bytes.count), transient)
            }
        }
        guard sqlite3_step(statement) == SQLITE_DONE else { throw failure() }
    }
}
