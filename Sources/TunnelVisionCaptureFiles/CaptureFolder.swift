import Foundation
import Glibc

/// The configured capture folder, opened once: the files that rows of the history name are
/// deleted and cut only relative to it, only when their name is of the capture-file form
/// (`CaptureFileName.ownName`), and never through a link (`O_NOFOLLOW`). The folder itself may
/// be a link an administrator made (captures on another disk): whatever it leads to, only names
/// of our own form are touched there.
public final class CaptureFolder {
    public let path: String
    private let descriptor: Int32

    public init(path: String) throws(CaptureWriteError) {
        self.path = path
        descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .io(path: path, errno: errno) }
    }

    deinit { close(descriptor) }

    /// The name inside this folder a row's path stands for, or nil when the row names anything else.
    public func name(ofRow path: String) -> String? { CaptureFileName.ownName(ofPath: path, inFolder: self.path) }

    /// Deletes the file; a file already gone counts as deleted. The errno of a failure, else 0.
    public func remove(_ name: String) -> Int32 {
        // unlinkat removes a link itself, never what it names.
        unlinkat(descriptor, name, 0) == 0 || errno == ENOENT ? 0 : errno
    }

    /// When the file was last written (the file itself, never a link's target).
    public func modified(_ name: String) -> Date? {
        var status = stat()
        guard fstatat(descriptor, name, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec))
    }

    /// When the file was last written, only for a regular file (never a link) this process's user
    /// owns: what the daemon itself made in a folder others may also write.
    public func modifiedIfOwn(_ name: String) -> Date? {
        var status = stat()
        guard fstatat(descriptor, name, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFREG,
              status.st_uid == geteuid() else { return nil }
        return Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec))
    }

    /// Cuts a torn tail off a file of this folder (after a crash), as `cutTornTail(ofCaptureFile:)`.
    public func cutTornTail(_ name: String) throws(CaptureReadError) -> (length: UInt64, cut: UInt64) {
        let full = (path as NSString).appendingPathComponent(name)
        // O_NONBLOCK: a FIFO put in the file's place is opened without waiting, then refused.
        let file = openat(descriptor, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard file >= 0 else { throw errno == ENOENT ? .missing(path: full) : .unreadable(path: full, errno: errno) }
        let reader = try CaptureFileReader(descriptor: file, path: full)
        let walk = try reader.recordOffsets()
        guard let tail = walk.tornTailAt else { return (reader.byteCount, 0) }
        guard reader.truncate(to: tail) else { throw .unreadable(path: full, errno: errno) }
        return (tail, reader.byteCount - tail)
    }
}
