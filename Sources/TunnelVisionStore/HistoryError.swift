import TunnelVisionModel

/// The history did not answer: the database could not be opened, read or written.
/// Nothing here is a rule the user broke; each case says what to look at.
public enum HistoryError: Error, Sendable, Hashable {
    /// The file or its folder is not readable/writable by this user.
    case permissionDenied(path: String)
    /// The file could not be opened at all (missing folder, not a database).
    case cannotOpen(path: String, reason: String)
    /// Another process held the database longer than the busy timeout.
    case busy(path: String)
    /// The file is damaged.
    case corrupt(path: String)
    /// The file is there and empty but was not just created: a truncated history, not a new one.
    case emptyFile(path: String)
    /// A symbolic link where the history (or its journal) should be: never followed, since a
    /// member of the group can put one there and a root process would open what it names.
    case symbolicLink(path: String)
    /// Opened as root, a history that neither root nor the daemon's user owns: made by someone else.
    case foreignOwner(path: String, owner: UInt32)
    /// The file system that holds it is mounted read-only.
    case readOnlyFileSystem(path: String)
    /// Written by a newer TunnelVision: this version does not know its schema.
    case newerSchema(path: String, found: Int, supported: Int)
    /// The disk is full.
    case diskFull(path: String)
    /// A row this version cannot read, left as it is rather than left out of an answer.
    case unreadableRow(table: String, id: Int64, reason: String)
    /// Any other failure, with SQLite's own words.
    case failed(path: String, code: Int32, message: String)
}

/// A rule of the audit model the caller can act on.
public enum AuditStoreError: Error, Sendable, Equatable {
    case emptyProjectName
    case duplicateAllowlistPattern(String)
    case projectNotFound(Int64)
    case sessionNotFound(Int64)
    /// Carries the session in the way.
    case sessionAlreadyOpen(Int64)
    case sessionAlreadyEnded(Int64)
    /// An end or a marker dated before the session began.
    case dateBeforeSessionStart
    case emptyMarkerLabel
}

/// A rule about phones the caller can act on.
public enum PhoneStoreError: Error, Sendable, Equatable {
    case emptyName
    case nameTaken(String)
    /// Another phone already has this address or key.
    case addressTaken(IPAddress, by: String)
    case keyTaken(by: String)
    case notFound(String)
    case wrongFamily(IPAddress)
    /// A phone being recorded is not removed: its recording would lose its addresses' meaning.
    case recording(String, session: Int64)
}
