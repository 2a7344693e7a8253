import COpenSSL
import Foundation

/// An Ed25519 key pair held by libcrypto: made, read from and written to PKCS#8 PEM (what
/// `openssl pkey` reads), signing and verifying whole messages (Ed25519 hashes internally).
public final class Ed25519Key {
    public static let publicKeyLength = 32
    public static let signatureLength = 64

    private let key: OpaquePointer

    private init(key: OpaquePointer) {
        self.key = key
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// A new pair from the system's random source; nil only when libcrypto could not make one.
    public static func generate() -> Ed25519Key? {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        var made: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_keygen(context, &made) == 1, let made else { return nil }
        return Ed25519Key(key: made)
    }

    /// The private key of a PEM file, or nil when it holds no Ed25519 private key.
    public static func read(pem: Data) -> Ed25519Key? {
        let key: OpaquePointer? = pem.withUnsafeBytes { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key else { return nil }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_ED25519 else {
            EVP_PKEY_free(key)
            return nil
        }
        return Ed25519Key(key: key)
    }

    /// PKCS#8 PEM, unencrypted: the file's mode is what protects it.
    public func pem() -> Data? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else { return nil }
        let pending = Int(BIO_ctrl_pending(bio))
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = bytes.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(pending)) }
        return read == pending ? Data(bytes) : nil
    }

    public var publicKey: [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Self.publicKeyLength)
        var length = bytes.count
        guard EVP_PKEY_get_raw_public_key(key, &bytes, &length) == 1, length == Self.publicKeyLength else { return [] }
        return bytes
    }

    public func sign(_ message: [UInt8]) -> [UInt8]? {
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        var signature = [UInt8](repeating: 0, count: Self.signatureLength)
        var length = signature.count
        guard EVP_DigestSignInit(context, nil, nil, nil, key) == 1,
              EVP_DigestSign(context, &signature, &length, message, message.count) == 1,
              length == Self.signatureLength else { return nil }
        return signature
    }

    /// Whether `signature` is the Ed25519 signature of `message` under the 32-byte `publicKey`.
    public static func verify(signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard publicKey.count == publicKeyLength, signature.count == signatureLength,
              let key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, publicKey, publicKey.count) else { return false }
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        return EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1
            && EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }
}
