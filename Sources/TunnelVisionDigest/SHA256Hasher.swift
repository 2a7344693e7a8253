import COpenSSL
import Foundation

/// SHA-256 through libcrypto, fed piece by piece so that a capture is hashed while it is written.
public final class SHA256Hasher {
    private let context: OpaquePointer
    public private(set) var byteCount: UInt64 = 0

    public init() {
        // EVP_MD_CTX_new fails only when memory is exhausted; nothing sensible is left to do then.
        guard let context = EVP_MD_CTX_new() else { fatalError("libcrypto could not allocate a digest context") }
        self.context = context
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
        byteCount += UInt64(bytes.count)
    }

    public func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// Lower case hex of the digest of everything fed so far; the hasher is spent afterwards.
    public func finish() -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return digest.prefix(Int(length)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 0x10 ? "0" + hex : hex
        }.joined()
    }

    public static func hex(of data: Data) -> String {
        let hasher = SHA256Hasher()
        hasher.update(data)
        return hasher.finish()
    }
}
