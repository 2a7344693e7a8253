import Foundation
import Glibc
import TunnelVisionModel

/// A folder of keys beside the history's folder, never inside it: the history's folder is
/// group-writable, so a member of the group could rename a key folder in it away and put one of
/// their own in its place. Beside it (for `/var/lib/tunnelvision/history.sqlite`, the folder
/// `/var/lib/tunnelvision-signing`) the parent is root's, and a reader still trusts a key only
/// when the folder and the file belong to root, to `owner` or to the user reading, and nobody
/// else may write them: the folder is opened once without following a link and every file is
/// read through it.
public struct KeyFolder: Sendable, Hashable {
    public let path: String
    /// Who should own the folder (root, or the daemon's user); the user reading is trusted as well.
    public let owner: uid_t

    public init(path: String, owner: uid_t = 0) {
        (self.path, self.owner) = (path, owner)
    }

    /// For a history `/var/lib/tunnelvision/history.sqlite` and the name `signing`: `/var/lib/tunnelvision-signing`.
    public static func path(_ name: String, besideHistory history: String) -> String {
        let historyFolder = URL(fileURLWithPath: history).deletingLastPathComponent()
        return historyFolder.deletingLastPathComponent().appendingPathComponent(historyFolder.lastPathComponent + "-" + name).path
    }

    /// The owner of the history's folder (on a gateway the daemon's user, whom no member can
    /// become) and its group.
    public static func owner(ofFolderOfHistory history: String) -> (user: uid_t, group: gid_t)? {
        var status = stat()
        guard stat(URL(fileURLWithPath: history).deletingLastPathComponent().path, &status) == 0 else { return nil }
        return (status.st_uid, status.st_gid)
    }

    public enum Failure: Error, Sendable, Hashable {
        case refused(path: String, problem: PrivateDirectory.Problem)
        case unreadable(path: String, errno: Int32)
    }

    /// The file's bytes (at most `limit`), nil when the folder or the file is not there.
    public func read(_ name: String, limit: Int = 1 << 20) throws(Failure) -> Data? {
        guard let folder = try open() else { return nil }
        defer { close(folder) }
        let full = path + "/" + name
        let file = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard file >= 0 else {
            if errno == ENOENT { return nil }
            throw errno == ELOOP ? .refused(path: full, problem: .notADirectory) : .unreadable(path: full, errno: errno)
        }
        defer { close(file) }
        try check(file, path: full, kind: S_IFREG)
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while data.count <= limit {
            let count = Glibc.read(file, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw .unreadable(path: full, errno: errno) }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }

    /// The folder itself checked, without reading anything: false when it is not there.
    public func isTrusted() throws(Failure) -> Bool {
        guard let folder = try open() else { return false }
        close(folder)
        return true
    }

    private func open() throws(Failure) -> Int32? {
        let folder = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else {
            if errno == ENOENT { return nil }
            throw errno == ELOOP || errno == ENOTDIR ? .refused(path: path, problem: .notADirectory) : .unreadable(path: path, errno: errno)
        }
        do throws(Failure) { try check(folder, path: path, kind: S_IFDIR) } catch {
            close(folder)
            throw error
        }
        return folder
    }

    private func check(_ descriptor: Int32, path: String, kind: mode_t) throws(Failure) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadable(path: path, errno: errno) }
        guard status.st_mode & S_IFMT == kind else { throw .refused(path: path, problem: .notADirectory) }
        guard [0, owner, geteuid()].contains(status.st_uid) else { throw .refused(path: path, problem: .ownedBy(user: status.st_uid, expected: owner)) }
        guard status.st_mode & 0o022 == 0 else { throw .refused(path: path, problem: .writableByOthers(mode: status.st_mode & 0o7777)) }
    }
}
