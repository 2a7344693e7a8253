import Foundation
import TunnelVisionModel
import TunnelVisionDigest

/// The daemon's key for the chain over the capture files, in a folder beside the history's folder
/// (`KeyFolder`: for the gateway's history, `/var/lib/tunnelvision-seal`), which the installer
/// makes for the daemon's user (0750; the daemon makes it when it may): `capture-seal.key` (PKCS#8
/// PEM, 0600, the daemon's user alone: unlike the gateway key, no group member can read it, so none
/// can sign a link) and `capture-seal.pub`, its 32-byte public key in hex (0640), which the
/// exporter checks links against. Both the daemon and a reader take a key only from a folder and
/// file owned by root, by the user reading, or by the owner of the history's folder (the daemon's
/// user), and writable by nobody else, so a folder a group member put in its place is refused.
public struct CaptureSealKey: Sendable, Hashable {
    public let folder: String
    /// Trusted besides root and the user running this: the daemon's user.
    let daemon: uid_t?
    /// The group a folder made by root is given (the history's: members read the public key).
    let group: gid_t?

    public init(folder: String, daemon: uid_t? = nil, group: gid_t? = nil) {
        (self.folder, self.daemon, self.group) = (folder, daemon, group)
    }

    /// The `seal` folder beside the folder of a history file, whose owner is the daemon's user.
    public init(besideHistory path: String) {
        let owner = KeyFolder.owner(ofFolderOfHistory: path)
        self.init(folder: KeyFolder.path("seal", besideHistory: path), daemon: owner?.user, group: owner?.group)
    }

    public var privateKeyPath: String { folder + "/capture-seal.key" }
    public var publicKeyPath: String { folder + "/capture-seal.pub" }
    private var keyFolder: KeyFolder { KeyFolder(path: folder, owner: daemon ?? 0) }

    public enum Failure: Error, Sendable, Hashable {
        case unreadable(path: String, errno: Int32)
        case malformed(path: String)
        case notMade(path: String, errno: Int32)
        /// A link, owned by someone other than root or the daemon's user, or writable by others.
        case notTheDaemons(path: String, problem: PrivateDirectory.Problem)
    }

    /// The daemon's signing key, made (with its public file) when there is none yet.
    public func loadOrCreate() throws(Failure) -> Ed25519Key {
        if let pem = try read(privateKeyPath) {
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

    /// The daemon's, 0750, in the history folder's group: members read the public key in it. On a
    /// gateway the installer made it already (the daemon may not write the folder it is in).
    private func makeFolder() throws(Failure) {
        if mkdir(folder, 0o750) != 0 {
            guard errno == EEXIST else { throw .notMade(path: folder, errno: errno) }
            return
        }
        if geteuid() == 0, let group, chown(folder, 0, group) != 0 { throw .notMade(path: folder, errno: errno) }
        guard chmod(folder, 0o750) == 0 else { throw .notMade(path: folder, errno: errno) }
    }

    /// The public key for a reader (the exporter): the same checks as every read.
    public func trustedPublicKey() throws(Failure) -> [UInt8]? { try publicKey() }

    /// The published public key, or nil when the daemon has not made one yet.
    public func publicKey() throws(Failure) -> [UInt8]? {
        guard let data = try read(publicKeyPath) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let bytes = Hex.decode(text), bytes.count == Ed25519Key.publicKeyLength else { throw .malformed(path: publicKeyPath) }
        return bytes
    }

    private func read(_ path: String) throws(Failure) -> Data? {
        do throws(KeyFolder.Failure) {
            return try keyFolder.read((path as NSString).lastPathComponent, limit: 1 << 16)
        } catch {
            switch error {
            case .refused(let refused, let problem): throw .notTheDaemons(path: refused, problem: problem)
            case .unreadable(let unreadable, let code): throw .unreadable(path: unreadable, errno: code)
            }
        }
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
