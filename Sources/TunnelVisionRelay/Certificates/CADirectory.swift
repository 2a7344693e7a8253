import Foundation
import Glibc
import TunnelVisionModel

/// Who the CA's files belong to: the daemon's user, and the group that may read the certificate
/// (nil: the group the file is made with). Never whoever owns the directory.
public struct CAFilesOwner: Sendable, Hashable {
    public var user: uid_t
    public var group: gid_t?

    public init(user: uid_t, group: gid_t? = nil) {
        self.user = user
        self.group = group
    }

    /// The daemon writing its own files.
    public static var current: CAFilesOwner { CAFilesOwner(user: geteuid()) }
}

/// The directory of the CA's files, opened once (`O_DIRECTORY|O_NOFOLLOW`) and checked through
/// its descriptor, so every file is read and written relative to the directory that was checked:
/// a directory swapped or linked in by someone else after the check is never the one used.
final class CADirectory {
    let path: String
    private let descriptor: Int32

    /// Opens the directory of `file` and checks it belongs to `owner.user` and no one else may
    /// write in it. With `create`, a missing directory is made (0750) and given to the owner.
    init(containing file: String, owner: CAFilesOwner, create: Bool) throws(RelayError) {
        path = (file as NSString).deletingLastPathComponent
        var made = false
        if create {
            made = mkdir(path, 0o750) == 0
            guard made || errno == EEXIST else { throw Self.unwritable(path) }
        }
        descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            guard errno == ELOOP || errno == ENOTDIR else { throw Self.unwritable(path) }
            throw .certificateAuthorityDirectoryRefused(path: path, problem: .notADirectory)
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            close(descriptor)
            throw Self.unwritable(path)
        }
        // A directory made just now is this process's until it is handed over; no one else can
        // make one owned by root, so a swap between mkdir and open is refused all the same.
        let expected = made ? geteuid() : owner.user
        if let problem = PrivateDirectory.problem(fileMode: status.st_mode, owner: status.st_uid, expectedOwner: expected) {
            close(descriptor)
            throw .certificateAuthorityDirectoryRefused(path: path, problem: problem)
        }
        guard !made || owner.user == expected && owner.group == nil || fchown(descriptor, owner.user, owner.group ?? gid_t.max) == 0 else {
            close(descriptor)
            throw Self.unwritable(path)
        }
    }

    deinit { close(descriptor) }

    func name(of file: String) -> String { (file as NSString).lastPathComponent }

    /// Whether the entry exists (a link counts: it is refused when read).
    func contains(_ name: String) -> Bool {
        var status = stat()
        return fstatat(descriptor, name, &status, AT_SYMLINK_NOFOLLOW) == 0
    }

    /// The file's bytes and mode; a link in place of the file is refused.
    func read(_ name: String) throws(RelayError) -> (bytes: [UInt8], mode: mode_t) {
        let file = openat(descriptor, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard file >= 0 else { throw .certificateAuthorityUnreadable(path: full(name), reason: String(cString: strerror(errno))) }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw .certificateAuthorityUnreadable(path: full(name), reason: "not a regular file")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(file, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw .certificateAuthorityUnreadable(path: full(name), reason: String(cString: strerror(errno))) }
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        return (bytes, status.st_mode & 0o7777)
    }

    /// Written beside the target under a fresh name and renamed over it, so a crash leaves the
    /// old file or the new one; owner, group and mode are set on the descriptor before the rename.
    func write(_ bytes: [UInt8], to name: String, mode: mode_t, owner: CAFilesOwner) throws(RelayError) {
        let temporary = name + ".new"
        unlinkat(descriptor, temporary, 0)
        let file = openat(descriptor, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard file >= 0 else { throw Self.unwritable(full(name)) }
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { Glibc.write(file, $0.baseAddress! + written, $0.count - written) }
            if result < 0, errno == EINTR { continue }
            guard result > 0 else {
                close(file)
                throw Self.unwritable(full(name))
            }
            written += result
        }
        // The umask must not widen or narrow what the CA's files promise.
        let handedOver = owner.user == geteuid() && owner.group == nil || fchown(file, owner.user, owner.group ?? gid_t.max) == 0
        guard handedOver, fchmod(file, mode) == 0, fsync(file) == 0 else {
            close(file)
            throw Self.unwritable(full(name))
        }
        close(file)
        guard renameat(descriptor, temporary, descriptor, name) == 0 else { throw Self.unwritable(full(name)) }
    }

    private func full(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    private static func unwritable(_ path: String) -> RelayError {
        .certificateAuthorityNotWritable(path: path, reason: String(cString: strerror(errno)))
    }
}
