import CSQLite
import Foundation
import TunnelVisionModel

/// What SQLite said when a call failed: its result code and its message.
struct SQLiteFailure: Error, Sendable, Equatable {
    let code: Int32
    let message: String

    var primaryCode: Int32 { code & 0xFF }
    var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }
    var isConstraint: Bool { primaryCode == SQLITE_CONSTRAINT }
}

/// SQLITE_TRANSIENT: SQLite copies the bound bytes before the call returns.
private let transientDestructor = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One connection. Not thread-safe on its own: `History` serialises access to it.
final class SQLiteConnection {
    private(set) var handle: OpaquePointer?
    private var cache: [String: Statement] = [:]

    init(path: String, readOnly: Bool) throws(SQLiteFailure) {
        var db: OpaquePointer?
        // NOFOLLOW: the history's folder is the group's to write, so a member could put a link
        // where the history is, and a root process would create or open whatever it names.
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
        let result = sqlite3_open_v2(path, &db, flags, nil)
        guard result == SQLITE_OK else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw SQLiteFailure(code: result, message: message)
        }
        sqlite3_extended_result_codes(db, 1)
        handle = db
        // A schema someone else wrote runs no function of its own choosing in a trigger or a
        // view, and no statement may corrupt the file on purpose (writable_schema, raw pages).
        guard tv_sqlite3_db_config_int(db, SQLITE_DBCONFIG_DEFENSIVE, 1) == SQLITE_OK,
              tv_sqlite3_db_config_int(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0) == SQLITE_OK
        else { throw failure(SQLITE_MISUSE) }
        try execute("PRAGMA trusted_schema = OFF")
    }

    deinit {
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    func failure(_ code: Int32) -> SQLiteFailure {
        SQLiteFailure(code: code, message: String(cString: sqlite3_errmsg(handle)))
    }

    func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    func execute(_ sql: String) throws(SQLiteFailure) {
        let result = sqlite3_exec(handle, sql, nil, nil, nil)
        guard result == SQLITE_OK else { throw failure(result) }
    }

    /// A prepared statement, reset and kept for the next call with the same text.
    func statement(_ sql: String) throws(SQLiteFailure) -> Statement {
        if let cached = cache[sql] {
            cached.reset()
            return cached
        }
        var raw: OpaquePointer?
        let result = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard result == SQLITE_OK, let raw else { throw failure(result) }
        let statement = Statement(raw: raw, connection: self)
        cache[sql] = statement
        return statement
    }

    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Runs the body in a transaction, rolled back when it throws. IMMEDIATE takes the write
    /// lock up front, so the busy timeout applies instead of a deadlock-avoiding SQLITE_BUSY.
    /// Inside another transaction it is a savepoint of that one, so that several store calls
    /// can form one transaction (`History.inOneTransaction`).
    func transaction<T>(immediate: Bool, _ body: () throws -> T) throws -> T {
        let nested = sqlite3_get_autocommit(handle) == 0
        try execute(nested ? "SAVEPOINT nested" : immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        do {
            let value = try body()
            try execute(nested ? "RELEASE nested" : "COMMIT")
            return value
        } catch {
            // A rolled-back savepoint stays open until it is released.
            for undo in nested ? ["ROLLBACK TO nested", "RELEASE nested"] : ["ROLLBACK"] { try? execute(undo) }
            throw error
        }
    }
}

/// A value SQLite can bind.
enum SQLValue {
    case integer(Int64)
    case text(String)
    /// Text given as its UTF-8 bytes (the packet index's runs), bound without a String.
    case utf8([UInt8])
    case null
}

final class Statement {
    private let raw: OpaquePointer
    private unowned let connection: SQLiteConnection

    fileprivate init(raw: OpaquePointer, connection: SQLiteConnection) {
        self.raw = raw
        self.connection = connection
    }

    deinit { sqlite3_finalize(raw) }

    func reset() {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
    }

    @discardableResult
    func bind(_ values: SQLValue...) throws(SQLiteFailure) -> Statement {
        try bind(values)
    }

    /// Binds `values` from parameter `first` on: a statement's values in parts, without joining arrays.
    @discardableResult
    func bind(_ values: [SQLValue], from first: Int32 = 1) throws(SQLiteFailure) -> Statement {
        for (offset, value) in values.enumerated() { try bind(value, at: first + Int32(offset)) }
        return self
    }

    /// Two values from parameter `first` on, without building an array of them.
    func bind(_ one: SQLValue, _ two: SQLValue, from first: Int32) throws(SQLiteFailure) {
        try bind(one, at: first)
        try bind(two, at: first + 1)
    }

    private func bind(_ value: SQLValue, at index: Int32) throws(SQLiteFailure) {
        let result: Int32
        switch value {
        case .integer(let number): result = sqlite3_bind_int64(raw, index, number)
        case .text(let text): result = sqlite3_bind_text(raw, index, text, -1, transientDestructor)
        case .utf8(let bytes):
            try bindText(bytes, at: index)
            return
        case .null: result = sqlite3_bind_null(raw, index)
        }
        guard result == SQLITE_OK else { throw connection.failure(result) }
    }

    /// One integer, without building an array of values: the packet index binds its runs so.
    func bind(_ value: Int64, at index: Int32) throws(SQLiteFailure) {
        let result = sqlite3_bind_int64(raw, index, value)
        guard result == SQLITE_OK else { throw connection.failure(result) }
    }

    /// UTF-8 text given as bytes, so that the packet index binds its runs without a String.
    func bindText(_ bytes: [UInt8], at index: Int32) throws(SQLiteFailure) {
        let result = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { sqlite3_bind_text(raw, index, $0.baseAddress, Int32(buffer.count), transientDestructor) }
        }
        guard result == SQLITE_OK else { throw connection.failure(result) }
    }

    /// Steps once; true while a row is there to read.
    func step() throws(SQLiteFailure) -> Bool {
        let result = sqlite3_step(raw)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let failure = connection.failure(result)
            sqlite3_reset(raw)
            throw failure
        }
    }

    func run() throws(SQLiteFailure) {
        while try step() {}
    }

    func rows<T>(_ read: (Row) throws -> T) throws -> [T] {
        var result: [T] = []
        while try step() { result.append(try read(Row(raw: raw))) }
        return result
    }

    /// Reads every row without collecting them: for reads that fold many rows into one result.
    func forEachRow(_ read: (Row) throws -> Void) throws {
        while try step() { try read(Row(raw: raw)) }
    }

    func firstRow<T>(_ read: (Row) throws -> T) throws -> T? {
        defer { sqlite3_reset(raw) }
        return try step() ? try read(Row(raw: raw)) : nil
    }
}

/// The current row of a statement, read by column index.
struct Row {
    fileprivate let raw: OpaquePointer

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(raw, column) == SQLITE_NULL }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(raw, column) }
    func int64OrNil(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
    func bool(_ column: Int32) -> Bool { int64(column) != 0 }

    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(raw, column) else { return "" }
        return String(cString: bytes)
    }

    func textOrNil(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }

    /// The column's text as SQLite holds it, valid only inside `body`: read without a copy.
    func withTextBytes<T, E: Error>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> T) throws(E) -> T {
        let start = sqlite3_column_text(raw, column)
        let count = Int(sqlite3_column_bytes(raw, column))
        return try body(UnsafeBufferPointer(start: start, count: start == nil ? 0 : count))
    }
}

extension SQLValue {
    var isNull: Bool {
        if case .null = self { true } else { false }
    }

    static func date(_ date: Date) -> SQLValue { .integer(date.nanosecondsSinceEpoch) }
    static func optionalDate(_ date: Date?) -> SQLValue { date.map(SQLValue.date) ?? .null }
    static func instant(_ instant: Instant) -> SQLValue { .integer(instant.nanosecondsSinceEpoch) }
    static func optionalInstant(_ instant: Instant?) -> SQLValue { instant.map(SQLValue.instant) ?? .null }
    static func optionalText(_ text: String?) -> SQLValue { text.map(SQLValue.text) ?? .null }
    static func optionalInteger(_ number: Int64?) -> SQLValue { number.map(SQLValue.integer) ?? .null }
    static func bool(_ value: Bool) -> SQLValue { .integer(value ? 1 : 0) }
}

extension Row {
    func date(_ column: Int32) -> Date { Date(nanosecondsSinceEpoch: int64(column)) }
    func dateOrNil(_ column: Int32) -> Date? { int64OrNil(column).map(Date.init(nanosecondsSinceEpoch:)) }
    func instant(_ column: Int32) -> Instant { Instant(nanosecondsSinceEpoch: int64(column)) }
    func instantOrNil(_ column: Int32) -> Instant? { int64OrNil(column).map(Instant.init(nanosecondsSinceEpoch:)) }
}
