#if canImport(Glibc)
import Glibc
#endif
import TunnelVisionStore

/// What the file system says about reaching the history, asked with the caller's own rights.
/// SQLite reports a refused open as "unable to open database file"; the kernel knows it was a
/// permission, and that is what a person outside the group needs to hear.
enum HistoryAccess {
    enum Standing: Equatable {
        case reachable
        case missing
        case permissionDenied
        /// The file is this user's, but its mode takes their own write permission away.
        case notWritableByItsOwner
        /// The file system is mounted read-only.
        case readOnlyFileSystem
        /// A link in place of the history, which is never followed (`History`).
        case symbolicLink
    }

    /// Before opening: is there a file, and may this user read and write it?
    static func standing(of location: DatabaseLocation) -> Standing {
        var status = stat()
        if lstat(location.path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK { return .symbolicLink }
        if stat(location.path, &status) != 0 {
            switch errno {
            case EACCES: return .permissionDenied
            default: return .missing
            }
        }
        if access(location.path, R_OK | W_OK) != 0 {
            switch errno {
            case EROFS: return .readOnlyFileSystem
            // Joining the group is no answer for the file's owner: the mode is.
            case EACCES where status.st_uid == geteuid() && status.st_mode & S_IWUSR == 0: return .notWritableByItsOwner
            case EACCES: return .permissionDenied
            default: break
            }
        }
        return .reachable
    }

    /// After SQLite refused to open or to write: whether a permission on the file, its journal
    /// or its directory is the reason.
    static func refusedByPermission(_ location: DatabaseLocation) -> Bool {
        if denied(location.directory, X_OK) { return true }
        if denied(location.path, R_OK | W_OK) { return true }
        for journal in [location.path + "-wal", location.path + "-shm"] {
            if exists(journal) {
                if denied(journal, R_OK | W_OK) { return true }
            } else if denied(location.directory, W_OK | X_OK) {
                // SQLite has to create the journal beside the database, in a directory it may not write.
                return true
            }
        }
        return false
    }

    /// Whether this process already has the group's rights: then joining it is not the answer.
    static func isInSharedGroup() -> Bool {
        guard let group = getgrnam(Wording.groupName) else { return false }
        let gid = group.pointee.gr_gid
        if getegid() == gid { return true }
        let count = getgroups(0, nil)
        guard count > 0 else { return false }
        var groups = [gid_t](repeating: 0, count: Int(count))
        let filled = getgroups(count, &groups)
        return filled > 0 && groups.prefix(Int(filled)).contains(gid)
    }

    private static func denied(_ path: String, _ mode: Int32) -> Bool {
        access(path, mode) != 0 && (errno == EACCES || errno == EPERM)
    }

    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0
    }
}
