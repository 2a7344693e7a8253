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
        return Hex.encode(Array(digest.prefix(Int(length))))
    }

    /// The one SHA-256 in lower-case hex of the tree: capture files, bundle members, the
    /// inspection CA's and the servers' certificates are all named by it.
    public static func hex(of data: Data) -> String {
        let hasher = SHA256Hasher()
        hasher.update(data)
        return hasher.finish()
    }

    public static func hex(of bytes: UnsafeRawBufferPointer) -> String {
        let hasher = SHA256Hasher()
        hasher.update(bytes)
        return hasher.finish()
    }

    public static func hex(of bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { hex(of: $0) }
    }
}
