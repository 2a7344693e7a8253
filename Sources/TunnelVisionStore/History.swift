import CSQLite
import Foundation
import TunnelVisionModel

/// The history and the audit model in one SQLite file, shared by the daemon and every tvctl
/// call: WAL, foreign keys on, and a busy timeout so that two processes wait for each other
/// instead of seeing "database is locked".
// Unchecked: the one connection is only ever touched with `lock` held.
public final class History: @unchecked Sendable {
    public let path: String
    private let connection: SQLiteConnection
    // Recursive: the calls inside `inOneTransaction` take it again.
    private let lock = NSRecursiveLock()

    /// How long a call waits for another process's write before the history counts as busy.
    static let busyTimeoutMilliseconds: Int32 = 15_000

    /// Opens (creating it if needed) and migrates the database at `path`.
    public convenience init(path: String) throws(HistoryError) {
        try self.init(path: path, migratingTo: Schema.version)
    }

    /// Migrates only up to `version`: how a test makes a database of an older version, and how
    /// the archive rebuilds a recording a gateway of an older version published, before this
    /// version's own steps move it forward.
    public init(path: String, migratingTo version: Int) throws(HistoryError) {
        self.path = path
        try Self.refuseLinksAndForeignFiles(path)
        try Self.createSharedWithTheGroup(path)
        let opened: SQLiteConnection
        do {
            opened = try SQLiteConnection(path: path, readOnly: false)
            opened.setBusyTimeout(milliseconds: Self.busyTimeoutMilliseconds)
            try opened.execute("PRAGMA foreign_keys = ON")
            try Self.enableWAL(on: opened)
            try opened.execute("PRAGMA synchronous = NORMAL")
            try Self.migrate(opened, to: version, path: path)
        } catch let error as HistoryError {
            throw error
        } catch let failure as SQLiteFailure {
            throw Self.historyError(failure, path: path)
        } catch {
            throw .cannotOpen(path: path, reason: "\(error)")
        }
        connection = opened
    }

    /// Runs the body with the connection; what SQLite throws becomes a HistoryError, and what
    /// the body throws of its own (AuditStoreError) passes through untouched.
    func access<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        do {
            return try body(connection)
        } catch let failure as SQLiteFailure {
            throw Self.historyError(failure, path: path)
        }
    }

    /// A write transaction that takes the write lock first.
    func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try access { db in try db.transaction(immediate: true) { try body(db) } }
    }

    /// Runs several store calls as one write transaction: all of them are kept, or none (a
    /// seed cut off by a full disk leaves nothing half-made).
    public func inOneTransaction<T>(_ body: () throws -> T) throws -> T {
        try write { _ in try body() }
    }

    /// Reads inside one transaction, so that everything the body reads is of one instant of the
    /// history even while the daemon keeps writing.
    public func reading<T>(_ body: (HistorySnapshot) throws -> T) throws -> T {
        try access { db in try db.transaction(immediate: false) { try body(HistorySnapshot(db: db)) } }
    }

    public var schemaVersion: Int {
        get throws { try access { db in try Self.userVersion(db) } }
    }

    public static var currentSchemaVersion: Int { Schema.version }

    /// Moves the write-ahead log into the main file and empties it, so that the main file alone
    /// is the whole history (a copy of it, a backup). A reader in the way leaves the rest for
    /// SQLite's own checkpoints; that is not an error.
    public func checkpoint() throws {
        try access { db in _ = try db.statement("PRAGMA wal_checkpoint(TRUNCATE)").firstRow { $0.int64(0) } }
    }

    private static func enableWAL(on db: SQLiteConnection) throws(SQLiteFailure) {
        let statement = try db.statement("PRAGMA journal_mode = WAL")
        _ = try? statement.firstRow { $0.text(0) }
    }

    private static func userVersion(_ db: SQLiteConnection) throws -> Int {
        Int(try db.statement("PRAGMA user_version").firstRow { $0.int64(0) } ?? 0)
    }

    private static func migrate(_ db: SQLiteConnection, to target: Int, path: String) throws {
        let found = try userVersion(db)
        guard found <= Schema.version else {
            throw HistoryError.newerSchema(path: path, found: found, supported: Schema.version)
        }
        guard found < target else { return }
        try db.transaction(immediate: true) {
            // Another process may have migrated while this one waited for the lock.
            let current = try userVersion(db)
            for step in current..<target {
                try db.execute(Schema.migrations[step])
                try db.execute("PRAGMA user_version = \(step + 1)")
            }
        }
    }

    static func historyError(_ failure: SQLiteFailure, path: String) -> HistoryError {
        // SQLite names a read-only mount as a permission or an open that failed; the kernel knows.
        if [SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_IOERR].contains(failure.primaryCode), isOnReadOnlyFileSystem(path) {
            return .readOnlyFileSystem(path: path)
        }
        return switch failure.primaryCode {
        case SQLITE_BUSY, SQLITE_LOCKED: .busy(path: path)
        case SQLITE_PERM, SQLITE_READONLY, SQLITE_AUTH: .permissionDenied(path: path)
        case SQLITE_CANTOPEN:
            isDenied(path) ? .permissionDenied(path: path) : .cannotOpen(path: path, reason: failure.message)
        case SQLITE_CORRUPT, SQLITE_NOTADB: .corrupt(path: path)
        case SQLITE_FULL: .diskFull(path: path)
        case SQLITE_IOERR where failure.message.contains("denied"): .permissionDenied(path: path)
        default: .failed(path: path, code: failure.code, message: failure.message)
        }
    }

    /// SQLite would create the file 0644 less the umask and give its journals the file's mode,
    /// which locks the group out: the daemon and tvctl share the history through the group, so a
    /// new history is made group-writable (0660 less the umask) before SQLite opens it. An empty
    /// file is an empty database only while it is being created; one emptied later (truncated by
    /// a mistake or a full disk) is refused, or its history would be silently replaced.
    private static func createSharedWithTheGroup(_ path: String) throws(HistoryError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o660)
        if descriptor >= 0 {
            close(descriptor)
            return
        }
        switch errno {
        case EEXIST:
            // Another process may have created it a moment ago: it is empty only until that
            // process's SQLite writes the first page, a few milliseconds later.
            for _ in 0..<40 {
                var status = stat()
                guard stat(path, &status) == 0, status.st_size == 0, status.st_mode & S_IFMT == S_IFREG else { return }
                usleep(50_000)
            }
            throw .emptyFile(path: path)
        case EACCES, EPERM: throw .permissionDenied(path: path)
        case EROFS: throw .readOnlyFileSystem(path: path)
        default: throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// The history's folder is the group's to write: a member may have put a link in place of the
    /// history or its journals, or a file of their own. Links are refused for everyone; root
    /// (tvctl run by a root tool, a daemon started as root) opens only a history that root or the
    /// daemon's user owns. SQLite's NOFOLLOW closes the gap between this look and its open.
    private static func refuseLinksAndForeignFiles(_ path: String) throws(HistoryError) {
        for file in [path, path + "-wal", path + "-shm"] {
            var status = stat()
            guard lstat(file, &status) == 0 else { continue }
            guard status.st_mode & S_IFMT != S_IFLNK else { throw .symbolicLink(path: file) }
            guard file == path, geteuid() == 0 else { continue }
            let daemon = getpwnam(DaemonSettings.daemonAccount)?.pointee.pw_uid
            guard status.st_uid == 0 || status.st_uid == daemon else { throw .foreignOwner(path: file, owner: status.st_uid) }
        }
    }

    static func isOnReadOnlyFileSystem(_ path: String) -> Bool {
        let folder = (path as NSString).deletingLastPathComponent
        var status = statvfs()
        return statvfs(folder.isEmpty ? "." : folder, &status) == 0 && status.f_flag & UInt(ST_RDONLY) != 0
    }

    /// Whether this user lacks the rights to the file, or to the folder it would be made in.
    private static func isDenied(_ path: String) -> Bool {
        if FileManager.default.fileExists(atPath: path) {
            return Glibc.access(path, R_OK | W_OK) != 0 && errno == EACCES
        }
        let folder = (path as NSString).deletingLastPathComponent
        return Glibc.access(folder.isEmpty ? "." : folder, W_OK | X_OK) != 0 && errno == EACCES
    }
}

/// The read side of the history inside one read transaction.
/// Valid only inside the closure it was handed to.
public struct HistorySnapshot {
    let db: SQLiteConnection
}
