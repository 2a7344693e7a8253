import Foundation

/// A private directory beside the output where a bundle is written before its .zip is moved
/// into place: on the same file system, so the move is a link and never a copy, and named after
/// the process that made it, so that only stagings whose process is gone are ever cleared.
struct EvidenceStaging {
    static let prefix = ".tunnelvision-export-"

    let url: URL

    /// Call `clearStale(in:)` first: a refused export clears them too.
    init(in output: URL) throws(EvidenceExportError) {
        let name = Self.prefix + "\(getpid())-" + UUID().uuidString.prefix(8)
        let url = output.appendingPathComponent(name, isDirectory: true)
        guard mkdir(url.path, 0o700) == 0 else {
            throw .outputUnavailable("\(output.path): \(String(cString: strerror(errno)))")
        }
        self.url = url
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// Puts the archive into the output directory under its own name without replacing anything
    /// already there: an earlier export is never deleted.
    func place(_ archive: URL, in output: URL) throws(EvidenceExportError) -> URL {
        let destination = output.appendingPathComponent(archive.lastPathComponent)
        guard chmod(archive.path, 0o640) == 0 else { throw .writeFailed("\(archive.path): \(String(cString: strerror(errno)))") }
        if link(archive.path, destination.path) == 0 {
            unlink(archive.path)
            return destination
        }
        // A file system without hard links: a rename, once nothing of that name is there.
        let failure = errno
        if failure == EEXIST { throw .bundleExists(destination.path) }
        guard [EPERM, EOPNOTSUPP, EXDEV].contains(failure), !FileManager.default.fileExists(atPath: destination.path),
              rename(archive.path, destination.path) == 0 else {
            throw .writeFailed("\(destination.path): \(String(cString: strerror(failure)))")
        }
        return destination
    }

    /// Stagings left by an export whose process no longer runs (killed, power lost).
    static func clearStale(in output: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: output.path)) ?? []
        for name in names where name.hasPrefix(prefix) {
            let pid = name.dropFirst(prefix.count).prefix { $0.isNumber }
            guard let process = pid_t(pid), process != getpid(), kill(process, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: output.appendingPathComponent(name))
        }
    }
}
