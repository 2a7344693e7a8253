import COpenSSL

/// BLAKE2b-512, the hash minisign's prehashed signatures (`ED`) sign instead of the file.
enum BLAKE2b512 {
    static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        guard EVP_Digest(bytes, bytes.count, &digest, &length, EVP_blake2b512(), nil) == 1, length == 64 else { return [] }
        return digest
    }
}
