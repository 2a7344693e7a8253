import Foundation
import Glibc
import TunnelVisionModel

/// Reads the inspection CA's certificate only from where the daemon alone could have written it.
/// The history says where the certificate is, and any member of the group can change that
/// setting: a certificate of their own, shown to a colleague who installs it on the phone, would
/// stand for the daemon's. So the certificate must lie in a directory of the daemon's user (or
/// root's: a daemon run by hand) that no one else may write (`PrivateDirectory`, opened without
/// following a link) and be a file of that same user, opened relative to it without following a
/// link. No member of the group can make such a file.
enum DaemonCertificateFile {
    enum Problem: Error, Sendable, Hashable {
        case directory(PrivateDirectory.Problem)
        /// A link, not a regular file, or a file of another user.
        case notTheDaemonsFile
        case missing
        case unreadable
    }

    /// The daemon's user: the account tunnelvision, as `tunnelvisiond --regenerate-ca` takes it.
    static var daemonUser: uid_t? { getpwnam(DaemonSettings.daemonAccount)?.pointee.pw_uid }

    static func read(_ path: String, daemonUser: uid_t? = daemonUser) throws(Problem) -> Data {
        let folder = (path as NSString).deletingLastPathComponent
        let directory = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard directory >= 0 else {
            if errno == ENOENT { throw .missing }
            throw errno == ELOOP || errno == ENOTDIR ? .directory(.notADirectory) : .unreadable
        }
        defer { close(directory) }
        var status = stat()
        guard fstat(directory, &status) == 0 else { throw .unreadable }
        let owners: Set<uid_t> = [0, daemonUser ?? 0]
        let owner = owners.contains(status.st_uid) ? status.st_uid : daemonUser ?? 0
        if let problem = PrivateDirectory.problem(fileMode: status.st_mode, owner: status.st_uid, expectedOwner: owner) {
            throw .directory(problem)
        }
        let file = openat(directory, (path as NSString).lastPathComponent, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard file >= 0 else {
            if errno == ENOENT { throw .missing }
            throw errno == ELOOP ? .notTheDaemonsFile : .unreadable
        }
        let handle = FileHandle(fileDescriptor: file, closeOnDealloc: true)
        guard fstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == owner else { throw .notTheDaemonsFile }
        guard let data = try? handle.readToEnd() else { throw .unreadable }
        return data
    }
}
