import Foundation
import TunnelVisionDigest
import TunnelVisionModel

/// The chain over the capture files: how a link's text is formed, how the daemon adds one, and how
/// a reader (the exporter, `tvctl verify`) checks links against each other and the daemon's key.
///
/// The signed text is one line per field, so that nothing in one field can pass for another (a
/// file name never holds a line break: the writer makes the names).
public enum CaptureChain {
    public static let start = String(repeating: "0", count: 64)

    /// What is signed and what the next link's `previous` is the SHA-256 of.
    public static func signedText(position: Int64, sequence: UInt32, fileName: String, bytes: UInt64, sha256: String,
                                  origin: CaptureSeal.Origin, sealedAt: Date, previous: String) -> [UInt8] {
        let seconds = Int64(sealedAt.timeIntervalSince1970.rounded(.down))
        return Array("""
            tunnelvision capture seal 1
            position \(position)
            sequence \(sequence)
            file \(fileName)
            bytes \(bytes)
            sha256 \(sha256)
            origin \(origin.rawValue)
            sealed \(seconds)
            previous \(previous)

            """.utf8)
    }

    public static func signedText(of seal: CaptureSeal) -> [UInt8] {
        signedText(position: seal.position, sequence: seal.sequence, fileName: seal.fileName, bytes: seal.bytes,
                   sha256: seal.sha256, origin: seal.origin, sealedAt: seal.sealedAt, previous: seal.previous)
    }

    /// The SHA-256 the link after `seal` holds.
    public static func digest(of seal: CaptureSeal) -> String {
        let hasher = SHA256Hasher()
        signedText(of: seal).withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
    }

    /// The link after `last` (nil: the first), signed with `key`; nil only when libcrypto could not sign.
    public static func seal(after last: CaptureSeal?, sequence: UInt32, fileName: String, bytes: UInt64, sha256: String,
                            origin: CaptureSeal.Origin, at instant: Date, key: Ed25519Key) -> CaptureSeal? {
        let position = (last?.position ?? 0) + 1
        let previous = last.map(digest(of:)) ?? start
        // Whole seconds, so that the instant reads back from any store exactly as it was signed.
        let sealedAt = Date(timeIntervalSince1970: instant.timeIntervalSince1970.rounded(.down))
        let text = signedText(position: position, sequence: sequence, fileName: fileName, bytes: bytes, sha256: sha256,
                              origin: origin, sealedAt: sealedAt, previous: previous)
        guard let signature = key.sign(text) else { return nil }
        return CaptureSeal(position: position, sequence: sequence, fileName: fileName, bytes: bytes, sha256: sha256,
                           origin: origin, sealedAt: sealedAt, previous: previous, signature: Hex.encode(signature))
    }

    /// Why links do not hold together.
    public enum Fault: Error, Sendable, Hashable {
        /// The signature is not the daemon key's over the link's text: the link was edited or forged.
        case forged(CaptureSeal)
        /// The link does not hold the digest of the one before it, or skips a position.
        case brokenLink(CaptureSeal)
    }

    /// Checks `seals` (consecutive links, oldest first, possibly not from the first) against each
    /// other and the daemon's public key: the first fault, or nil.
    public static func check(_ seals: [CaptureSeal], publicKey: [UInt8]) -> Fault? {
        var before: CaptureSeal?
        for seal in seals {
            guard let signature = Hex.decode(seal.signature),
                  Ed25519Key.verify(signature: signature, of: signedText(of: seal), publicKey: publicKey) else { return .forged(seal) }
            if let before {
                guard seal.position == before.position + 1, seal.previous == digest(of: before) else { return .brokenLink(seal) }
            } else if seal.position == 1, seal.previous != start {
                return .brokenLink(seal)
            }
            before = seal
        }
        return nil
    }
}
