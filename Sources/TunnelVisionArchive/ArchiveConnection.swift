import CLibPQ
import Foundation

/// What went wrong with the archive, in terms the administrator can act on.
public enum ArchiveError: Error, Sendable, Equatable {
    /// The server could not be reached or refused the login (libpq's own words).
    case unreachable(String)
    /// A statement failed: its SQLSTATE and the server's message.
    case statementFailed(state: String, message: String)
    /// The archive's schema is newer than this tool knows.
    case newerSchema(found: Int, supported: Int)
    /// The configuration file is missing, unreadable or has a line the tool does not understand.
    case configuration(String)
    /// The gateway's history could not be read (SQLite's words).
    case history(String)
    /// The archive holds no recording by that name.
    case recordingNotFound(String)
    /// A project was edited on this gateway and in the archive since they last agreed.
    case projectConflict(name: String)
    /// A row published by a newer gateway has a column this tool's history does not.
    case foreignRow(table: String, detail: String)
    /// The archive holds no bundle for the recording.
    case noBundle(String)
    /// The bundle exported on this gateway for publishing could not be read back (its path).
    case bundleNotReadBack(String)
    /// A project deleted in the archive that this gateway keeps: recordings of it are here.
    case projectDeletedWithRecordings(name: String, recordings: Int)
    /// These recordings' bundles could not be exported: they wait, the others were published.
    case held([Int64])
}

/// One connection to the archive's PostgreSQL. Not thread-safe: one command, one connection.
public final class ArchiveConnection {
    private let handle: OpaquePointer

    /// `conninfo` is libpq's connection string (`host=… dbname=… sslmode=verify-full sslrootcert=…`).
    public init(_ conninfo: String) throws(ArchiveError) {
        // A server that does not answer at all must not hold a timer's run for ever; a string
        // that names its own timeout (or is a URI) keeps it.
        let bounded = conninfo.contains("connect_timeout") || conninfo.contains("://") ? conninfo : conninfo + " connect_timeout=10"
        guard let connection = PQconnectdb(bounded) else { throw .unreachable("out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines)
            PQfinish(connection)
            throw .unreachable(message)
        }
        handle = connection
        // libpq prints the server's notices on standard error ("already exists, skipping"):
        // only warnings and errors are worth a line there.
        try execute("SET client_min_messages = warning")
    }

    deinit { PQfinish(handle) }

    /// Runs a statement with text parameters ($1, $2, …) and answers its rows as text (NULL as nil).
    @discardableResult
    public func execute(_ sql: String, _ parameters: [String?] = []) throws(ArchiveError) -> [[String?]] {
        // Each parameter's bytes must outlive the call: copied into C strings held here.
        let copies: [UnsafeMutablePointer<CChar>?] = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) }
        let result = pointers.withUnsafeBufferPointer { buffer in
            PQexecParams(handle, sql, Int32(parameters.count), nil, buffer.baseAddress, nil, nil, 0)
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw failure(result)
        }
        let rowCount = Int(PQntuples(result)), columnCount = Int(PQnfields(result))
        var rows: [[String?]] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            rows.append((0..<columnCount).map { column in
                PQgetisnull(result, Int32(row), Int32(column)) == 1
                    ? nil : String(cString: PQgetvalue(result, Int32(row), Int32(column)))
            })
        }
        return rows
    }

    /// Several statements without parameters (a migration step): libpq's simple protocol.
    public func executeScript(_ sql: String) throws(ArchiveError) {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw failure(result) }
    }

    /// One value of the first row, or nil when there is no row.
    public func value(_ sql: String, _ parameters: [String?] = []) throws(ArchiveError) -> String? {
        try execute(sql, parameters).first?.first ?? nil
    }

    /// The body inside one transaction: committed when it returns, rolled back when it throws,
    /// so that no reader ever sees half of what it wrote.
    public func inTransaction<Result>(_ body: () throws(ArchiveError) -> Result) throws(ArchiveError) -> Result {
        try execute("BEGIN")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
    }

    private func failure(_ result: OpaquePointer?) -> ArchiveError {
        if PQstatus(handle) != CONNECTION_OK {
            return .unreachable(String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
        let message = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
            ?? String(cString: PQerrorMessage(handle))
        return .statementFailed(state: state, message: message.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
