import Foundation
import TunnelVisionCaptureFiles

/// minisign's public key and signature files (minisign(1), its SIGNATURE FORMAT), so that
/// Debian's `minisign -V` checks a bundle without any tool of ours. A public key is
/// `Ed` ‖ key id (8 bytes) ‖ Ed25519 public key (32), in base64 under an untrusted comment. A
/// signature is `ED` ‖ key id ‖ the Ed25519 signature of the file's BLAKE2b-512 (prehashed),
/// then a trusted comment and a global signature over the signature ‖ the trusted comment.
public enum Minisign {
    static let publicKeyAlgorithm: [UInt8] = Array("Ed".utf8)
    static let prehashedAlgorithm: [UInt8] = Array("ED".utf8)
    static let untrustedPrefix = "untrusted comment: "
    static let trustedPrefix = "trusted comment: "
    /// minisign refuses longer comments.
    static let commentLimit = 1024

    /// minisign shows a key id as the 8 bytes read as a little-endian number, in upper-case hex.
    public static func keyIDText(_ keyID: [UInt8]) -> String {
        keyID.reversed().map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return byte < 0x10 ? "0" + hex : hex
        }.joined()
    }

    /// The key id of a gateway key: the first 8 bytes of its public key's BLAKE2b-512, so that the
    /// id is fixed by the key alone and no second file can disagree with it.
    static func keyID(of publicKey: [UInt8]) -> [UInt8] {
        Array(BLAKE2b512.digest(publicKey).prefix(8))
    }
}

/// A public key as minisign reads it with `-P` (the base64 line) or `-p` (the file).
public struct MinisignPublicKey: Sendable, Hashable {
    public let keyID: [UInt8]
    public let key: [UInt8]

    init(keyID: [UInt8], key: [UInt8]) {
        self.keyID = keyID
        self.key = key
    }

    /// The file's text or its base64 line alone; nil for anything else.
    public init?(text: String) {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let line: String
        switch lines.count {
        case 1: line = lines[0]
        case 2 where lines[0].hasPrefix(Minisign.untrustedPrefix): line = lines[1]
        default: return nil
        }
        guard let data = Data(base64Encoded: line), data.count == 42 else { return nil }
        let bytes = [UInt8](data)
        guard Array(bytes[0..<2]) == Minisign.publicKeyAlgorithm else { return nil }
        keyID = Array(bytes[2..<10])
        key = Array(bytes[10..<42])
    }

    public var keyIDText: String { Minisign.keyIDText(keyID) }

    /// What `minisign -P` takes.
    public var line: String { Data(Minisign.publicKeyAlgorithm + keyID + key).base64EncodedString() }

    /// The file `minisign -p` reads, as minisign writes it.
    public var file: String { "\(Minisign.untrustedPrefix)minisign public key \(keyIDText)\n\(line)\n" }
}

/// A signature file (`FILE.minisig`).
public struct MinisignSignature: Sendable, Hashable {
    public let keyID: [UInt8]
    let signature: [UInt8]
    public let untrustedComment: String
    public let trustedComment: String
    let globalSignature: [UInt8]

    public var keyIDText: String { Minisign.keyIDText(keyID) }

    /// Signs `file` with `key`; nil when libcrypto did not sign or a comment is too long or holds a line break.
    init?(signing file: [UInt8], with key: Ed25519Key, keyID: [UInt8], untrustedComment: String, trustedComment: String) {
        guard Self.isComment(untrustedComment), Self.isComment(trustedComment),
              let signature = key.sign(BLAKE2b512.digest(file)),
              let global = key.sign(signature + Array(trustedComment.utf8)) else { return nil }
        self.keyID = keyID
        self.signature = signature
        self.untrustedComment = untrustedComment
        self.trustedComment = trustedComment
        globalSignature = global
    }

    /// The text of a .minisig file; nil when it is not one (four lines, the right lengths).
    public init?(text: String) {
        guard text.utf8.count <= 4 * Minisign.commentLimit else { return nil }
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        guard lines.count == 4, lines[0].hasPrefix(Minisign.untrustedPrefix), lines[2].hasPrefix(Minisign.trustedPrefix),
              let first = Data(base64Encoded: lines[1]), first.count == 74,
              let global = Data(base64Encoded: lines[3]), global.count == 64 else { return nil }
        let bytes = [UInt8](first)
        guard Array(bytes[0..<2]) == Minisign.prehashedAlgorithm else { return nil }
        keyID = Array(bytes[2..<10])
        signature = Array(bytes[10..<74])
        untrustedComment = String(lines[0].dropFirst(Minisign.untrustedPrefix.count))
        trustedComment = String(lines[2].dropFirst(Minisign.trustedPrefix.count))
        globalSignature = [UInt8](global)
    }

    public var text: String {
        Minisign.untrustedPrefix + untrustedComment + "\n"
            + Data(Minisign.prehashedAlgorithm + keyID + signature).base64EncodedString() + "\n"
            + Minisign.trustedPrefix + trustedComment + "\n"
            + Data(globalSignature).base64EncodedString() + "\n"
    }

    public enum Verdict: Sendable, Hashable {
        case valid
        /// Made by another key than the one given.
        case otherKey(signedBy: String)
        /// The file is not the one signed.
        case fileChanged
        /// The trusted comment is not the one signed.
        case trustedCommentChanged
    }

    /// What minisign -V decides, in its order.
    public func verify(_ file: [UInt8], with publicKey: MinisignPublicKey) -> Verdict {
        guard keyID == publicKey.keyID else { return .otherKey(signedBy: keyIDText) }
        guard Ed25519Key.verify(signature: signature, of: BLAKE2b512.digest(file), publicKey: publicKey.key) else { return .fileChanged }
        guard Ed25519Key.verify(signature: globalSignature, of: signature + Array(trustedComment.utf8), publicKey: publicKey.key) else {
            return .trustedCommentChanged
        }
        return .valid
    }

    private static func isComment(_ text: String) -> Bool {
        text.utf8.count <= Minisign.commentLimit && !text.contains(where: \.isNewline)
    }
}
