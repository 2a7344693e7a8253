import COpenSSL
import Foundation
import TunnelVisionEvidence

/// SHA-256 through libcrypto, fed piece by piece so that a capture is hashed while it is written.
final class SHA256Hasher {
    private let context: OpaquePointer
    private(set) var byteCount: UInt64 = 0

    init() {
        // EVP_MD_CTX_new fails only when memory is exhausted; nothing sensible is left to do then.
        guard let context = EVP_MD_CTX_new() else { fatalError("libcrypto could not allocate a digest context") }
        self.context = context
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
        byteCount += UInt64(bytes.count)
    }

    func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// Lower case hex of the digest of everything fed so far; the hasher is spent afterwards.
    func finish() -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return digest.prefix(Int(length)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 0x10 ? "0" + hex : hex
        }.joined()
    }

    static func hex(of data: Data) -> String {
        let hasher = SHA256Hasher()
        hasher.update(data)
        return hasher.finish()
    }
}

/// A WireGuard public key's fingerprint: SHA-256 of its 32 bytes, lower-case hex. Nil for text
/// that is not a key (base64 of exactly 32 bytes).
public enum WireGuardKeyFingerprint {
    public static func of(publicKey: String) -> String? {
        guard let bytes = Data(base64Encoded: publicKey), bytes.count == 32 else { return nil }
        return SHA256Hasher.hex(of: bytes)
    }
}

extension EvidenceManifest.Entry {
    /// The entry of a file held in memory: its size and the SHA-256 of its bytes.
    public init(hashing file: EvidenceFile) {
        self.init(name: file.name, byteCount: UInt64(file.data.count), sha256: SHA256Hasher.hex(of: file.data))
    }
}
