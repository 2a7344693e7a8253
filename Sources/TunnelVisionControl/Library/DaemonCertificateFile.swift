import Foundation
import Glibc
import TunnelVisionModel

/// Reads the inspection CA's certificate only from where the daemon alone could have written it.
/// The history says where the certificate is, and any member of the group can change that
/// setting: a certificate of their own, shown to a colleague who installs it on the phone, would
/// stand for the daemon's. So the certificate must lie in a directory of the daemon's user that
/// no one else may write (`PrivateDirectory`, opened without following a link) and be a file of
/// that user, opened relative to it without following a link.
enum DaemonCertificateFile {
    enum Problem: Error, Sendable, Hashable {
        case directory(PrivateDirectory.Problem)
        /// A link, not a regular file, or a file of another user.
        case notTheDaemonsFile
        case missing
        case unreadable
    }

    /// The daemon's user: the account tunnelvision, or root where there is none (a development
    /// machine whose daemon runs as root), as `tunnelvisiond --regenerate-ca` takes it.
    static var daemonUser: uid_t { getpwnam(DaemonSettings.daemonAccount)?.pointee.pw_uid ?? 0 }

    static func read(_ path: String, daemonUser: uid_t = daemonUser) throws(Problem) -> Data {
        let folder = (path as NSString).deletingLastPathComponent
        let directory = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard directory >= 0 else {
            if errno == ENOENT { throw .missing }
            throw errno == ELOOP || errno == ENOTDIR ? .directory(.notADirectory) : .unreadable
        }
        defer { close(directory) }
        var status = stat()
        guard fstat(directory, &status) == 0 else { throw .unreadable }
        if let problem = PrivateDirectory.problem(fileMode: status.st_mode, owner: status.st_uid, expectedOwner: daemonUser) {
            throw .directory(problem)
        }
        let file = openat(directory, (path as NSString).lastPathComponent, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard file >= 0 else {
            if errno == ENOENT { throw .missing }
            throw errno == ELOOP ? .notTheDaemonsFile : .unreadable
        }
        let handle = FileHandle(fileDescriptor: file, closeOnDealloc: true)
        guard fstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == daemonUser else { throw .notTheDaemonsFile }
        guard let data = try? handle.readToEnd() else { throw .unreadable }
        return data
    }
}
