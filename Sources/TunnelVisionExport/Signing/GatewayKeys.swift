import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionModel

/// The gateway's signing keys, in a folder beside the history's folder (`KeyFolder`: for the
/// gateway's history, `/var/lib/tunnelvision-signing`): `gateway.key`, the Ed25519 private key
/// (PKCS#8 PEM, 0640, root and the history's group: the exporter runs as a group member),
/// `gateway.pub`, its public key in minisign's format (0644), and `retired.pub`, every public key
/// a rotation replaced, so that bundles signed earlier still verify. Only root makes or rotates a
/// key: the folder is root's and 0750 in a folder of root's, so a group member can read the key
/// but neither replace it nor the folder, and a key in a folder or file of anyone else's is refused.
public struct GatewayKeys: Sendable, Hashable {
    public static let folderName = "signing"
    public let folder: URL
    /// The group root gives the key files (the history's, on a gateway tunnelvision: the exporters').
    let group: gid_t?

    /// Keys in `folder`, given the group of the folder it is in.
    public init(folder: URL) {
        var parent = stat()
        self.folder = folder
        group = stat(folder.deletingLastPathComponent().path, &parent) == 0 ? parent.st_gid : nil
    }

    /// The folder beside the folder of a history file, given that folder's group.
    public init(besideHistory path: String) {
        folder = URL(fileURLWithPath: KeyFolder.path(Self.folderName, besideHistory: path), isDirectory: true)
        group = KeyFolder.owner(ofFolderOfHistory: path)?.group
    }

    public var privateKeyPath: String { folder.appendingPathComponent("gateway.key").path }
    public var publicKeyPath: String { folder.appendingPathComponent("gateway.pub").path }
    public var retiredKeysPath: String { folder.appendingPathComponent("retired.pub").path }

    /// The key exports sign with, or nil when this gateway has none yet.
    public func signer() throws(GatewayKeyError) -> GatewaySigner? {
        guard let pem = try read(privateKeyPath) else { return nil }
        guard let key = Ed25519Key.read(pem: pem) else { throw .malformed(path: privateKeyPath) }
        return GatewaySigner(pem: pem, publicKey: Self.publicKey(of: key))
    }

    /// The public key in use, or nil when there is none.
    public func current() throws(GatewayKeyError) -> MinisignPublicKey? {
        guard let data = try read(publicKeyPath) else { return nil }
        guard let key = MinisignPublicKey(text: String(decoding: data, as: UTF8.self)) else { throw .malformed(path: publicKeyPath) }
        return key
    }

    /// The retired public keys, oldest first.
    public func retired() throws(GatewayKeyError) -> [MinisignPublicKey] {
        guard let data = try read(retiredKeysPath) else { return [] }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        guard lines.count % 2 == 0 else { throw .malformed(path: retiredKeysPath) }
        var keys: [MinisignPublicKey] = []
        for index in stride(from: 0, to: lines.count, by: 2) {
            guard let key = MinisignPublicKey(text: lines[index] + "\n" + lines[index + 1]) else { throw .malformed(path: retiredKeysPath) }
            keys.append(key)
        }
        return keys
    }

    /// Every public key this gateway has signed with, the current one last.
    public func all() throws(GatewayKeyError) -> [MinisignPublicKey] {
        // A rotation cut short after retiring the key leaves it current and retired at once: listed once.
        let current = try current()
        return try retired().filter { $0 != current } + (current.map { [$0] } ?? [])
    }

    /// Makes the first pair; an existing one is kept and returned with `made` false.
    public func create() throws(GatewayKeyError) -> (key: MinisignPublicKey, made: Bool) {
        if let existing = try signer() { return (existing.publicKey, false) }
        return (try install(), true)
    }

    /// A new pair in place of the current one, whose public key joins the retired ones first:
    /// at no moment is a key that signed something missing from `all()`.
    public func rotate() throws(GatewayKeyError) -> (old: MinisignPublicKey?, new: MinisignPublicKey) {
        let old = try signer()?.publicKey
        if let old, try !retired().contains(old) {
            try append(old.file, to: retiredKeysPath)
        }
        return (old, try install())
    }

    private func install() throws(GatewayKeyError) -> MinisignPublicKey {
        try makeFolder()
        guard let key = Ed25519Key.generate(), let pem = key.pem() else { throw .notMade(path: privateKeyPath, reason: "libcrypto made no key") }
        let publicKey = Self.publicKey(of: key)
        try replace(privateKeyPath, with: pem, mode: 0o640)
        try replace(publicKeyPath, with: Data(publicKey.file.utf8), mode: 0o644)
        return publicKey
    }

    static func publicKey(of key: Ed25519Key) -> MinisignPublicKey {
        let bytes = key.publicKey
        return MinisignPublicKey(keyID: Minisign.keyID(of: bytes), key: bytes)
    }

    private func makeFolder() throws(GatewayKeyError) {
        if mkdir(folder.path, 0o750) != 0, errno != EEXIST { throw failure(folder.path) }
        try own(folder.path, mode: 0o750)
    }

    /// Written beside and renamed over, so that a reader sees the old file or the new one whole.
    private func replace(_ path: String, with data: Data, mode: mode_t) throws(GatewayKeyError) {
        let temporary = path + ".new"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(temporary) }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == data.count, synced else { unlink(temporary); throw failure(temporary) }
        do throws(GatewayKeyError) { try own(temporary, mode: mode) } catch { unlink(temporary); throw error }
        guard rename(temporary, path) == 0 else { unlink(temporary); throw failure(path) }
    }

    private func append(_ text: String, to path: String) throws(GatewayKeyError) {
        try makeFolder()
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure(path) }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        guard write(descriptor, bytes, bytes.count) == bytes.count, fsync(descriptor) == 0 else { throw failure(path) }
        try own(path, mode: 0o644)
    }

    private func own(_ path: String, mode: mode_t) throws(GatewayKeyError) {
        if geteuid() == 0, let group, chown(path, 0, group) != 0 { throw failure(path) }
        guard chmod(path, mode) == 0 else { throw failure(path) }
    }

    /// Only from a folder and file of root's (or of the user running this) that nobody else may write.
    private func read(_ path: String) throws(GatewayKeyError) -> Data? {
        let data: Data?
        do throws(KeyFolder.Failure) {
            data = try KeyFolder(path: folder.path).read((path as NSString).lastPathComponent)
        } catch {
            switch error {
            case .refused(let refused, let problem): throw .refused(path: refused, problem: problem)
            case .unreadable(let unreadable, EACCES): throw .notReadable(path: unreadable)
            case .unreadable(let unreadable, let code): throw .notMade(path: unreadable, reason: String(cString: strerror(code)))
            }
        }
        if let data, data.count > 1 << 20 { throw .malformed(path: path) }
        return data
    }

    private func failure(_ path: String) -> GatewayKeyError {
        .notMade(path: path, reason: String(cString: strerror(errno)))
    }
}

/// The private key an export signs with, read once per export.
public struct GatewaySigner: Sendable, Hashable {
    let pem: Data
    public let publicKey: MinisignPublicKey

    /// `manifest.json.minisig` of a manifest; nil when libcrypto did not sign.
    public func sign(_ file: [UInt8], trustedComment: String) -> MinisignSignature? {
        guard let key = Ed25519Key.read(pem: pem) else { return nil }
        return MinisignSignature(
            signing: file, with: key, keyID: publicKey.keyID,
            untrustedComment: "signature from TunnelVision gateway key \(publicKey.keyIDText)", trustedComment: trustedComment)
    }
}

public enum GatewayKeyError: Error, Sendable, Hashable {
    /// The file is there and this user may not read it (not in the group).
    case notReadable(path: String)
    /// The file is not a key of ours.
    case malformed(path: String)
    case notMade(path: String, reason: String)
    /// The folder or file is a link, someone else's than root's, or writable by others.
    case refused(path: String, problem: PrivateDirectory.Problem)
}
