import Foundation
import TunnelVisionDigest

/// The daemon's key for the chain over the capture files, in the folder `seal` beside the history,
/// which the daemon makes at its first start and owns (0750): `capture-seal.key` (PKCS#8 PEM, 0600,
/// the daemon's user alone: unlike the gateway key, no group member can read it, so none can sign a
/// link) and `capture-seal.pub`, its 32-byte public key in hex (0640), which the exporter checks
/// links against. The history's folder is group-writable, so a member could put a folder of their
/// own in its place: a reader takes the public key only from a folder and file owned by root or by
/// the owner of the history's folder (the daemon's user) and writable by nobody else.
public struct CaptureSealKey: Sendable, Hashable {
    public let folder: String

    public init(folder: String) {
        self.folder = folder
    }

    /// The `seal` folder beside a history file.
    public init(besideHistory path: String) {
        folder = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("seal").path
    }

    public var privateKeyPath: String { folder + "/capture-seal.key" }
    public var publicKeyPath: String { folder + "/capture-seal.pub" }

    public enum Failure: Error, Sendable, Hashable {
        case unreadable(path: String, errno: Int32)
        case malformed(path: String)
        case notMade(path: String, errno: Int32)
        /// Owned by someone other than root or the daemon's user, or writable by others.
        case notTheDaemons(path: String)
    }

    /// The daemon's signing key, made (with its public file) when there is none yet.
    public func loadOrCreate() throws(Failure) -> Ed25519Key {
        if let pem = try Self.read(privateKeyPath) {
            guard let key = Ed25519Key.read(pem: pem) else { throw .malformed(path: privateKeyPath) }
            // A public file lost or left behind by a crash is written again from the key.
            if try publicKey() != key.publicKey { try Self.replace(publicKeyPath, with: Data((Hex.encode(key.publicKey) + "\n").utf8), mode: 0o640) }
            return key
        }
        try makeFolder()
        guard let key = Ed25519Key.generate(), let pem = key.pem() else { throw .notMade(path: privateKeyPath, errno: 0) }
        try Self.replace(privateKeyPath, with: pem, mode: 0o600)
        try Self.replace(publicKeyPath, with: Data((Hex.encode(key.publicKey) + "\n").utf8), mode: 0o640)
        return key
    }

    /// The daemon's, 0750, in the history folder's group: members read the public key in it.
    private func makeFolder() throws(Failure) {
        if mkdir(folder, 0o750) != 0 {
            guard errno == EEXIST else { throw .notMade(path: folder, errno: errno) }
            return
        }
        var parent = stat()
        if geteuid() == 0, stat((folder as NSString).deletingLastPathComponent, &parent) == 0, chown(folder, 0, parent.st_gid) != 0 {
            throw .notMade(path: folder, errno: errno)
        }
        guard chmod(folder, 0o750) == 0 else { throw .notMade(path: folder, errno: errno) }
    }

    /// The public key for a reader: only from a folder and file that are root's or the daemon's
    /// (the owner of the history's folder) and that nobody else may write.
    public func trustedPublicKey() throws(Failure) -> [UInt8]? {
        var parent = stat()
        let daemon = stat((folder as NSString).deletingLastPathComponent, &parent) == 0 ? parent.st_uid : 0
        for path in [folder, publicKeyPath] {
            var status = stat()
            guard lstat(path, &status) == 0 else { return nil }
            guard status.st_uid == 0 || status.st_uid == daemon, status.st_mode & 0o022 == 0,
                  status.st_mode & S_IFMT == (path == folder ? S_IFDIR : S_IFREG) else { throw .notTheDaemons(path: path) }
        }
        return try publicKey()
    }

    /// The published public key, or nil when the daemon has not made one yet.
    public func publicKey() throws(Failure) -> [UInt8]? {
        guard let data = try Self.read(publicKeyPath) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let bytes = Hex.decode(text), bytes.count == Ed25519Key.publicKeyLength else { throw .malformed(path: publicKeyPath) }
        return bytes
    }

    private static func read(_ path: String) throws(Failure) -> Data? {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            if errno == ENOENT || access(path, F_OK) != 0 { return nil }
            throw .unreadable(path: path, errno: errno)
        }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 1 << 16) else { return Data() }
        return data
    }

    /// Written beside and renamed over, so that a reader sees the old file or the new one whole.
    private static func replace(_ path: String, with data: Data, mode: mode_t) throws(Failure) {
        let temporary = path + ".new"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw .notMade(path: temporary, errno: errno) }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0 && fchmod(descriptor, mode) == 0
        close(descriptor)
        guard written == data.count, synced, rename(temporary, path) == 0 else {
            let failure = errno
            unlink(temporary)
            throw .notMade(path: path, errno: failure)
        }
    }
}
