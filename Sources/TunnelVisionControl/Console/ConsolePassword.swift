import COpenSSL
import Foundation
import TunnelVisionDigest

/// The web console's password as it is stored: scrypt (RFC 7914) over a random salt, so that a
/// copied file costs an attacker 32 MiB and tens of milliseconds per guess. One line of text,
/// `scrypt$N$r$p$salt$key` with salt and key in lower-case hex; the parameters travel with the
/// hash so that a later release can raise them without locking anyone out.
public struct ConsolePassword: Sendable, Hashable {
    public let costExponent: Int
    public let blockSize: Int
    public let parallelism: Int
    public let salt: [UInt8]
    public let key: [UInt8]

    /// 2^15 × 8 × 128 bytes = 32 MiB per guess: OpenSSL's limit is raised to fit exactly that.
    public static let defaultCostExponent = 15
    public static let minimumLength = 10
    static let keyLength = 32

    /// Hashes a password with a new salt; nil only when the system has no randomness or memory.
    public static func hashing(_ password: String, costExponent: Int = defaultCostExponent) -> ConsolePassword? {
        var salt = [UInt8](repeating: 0, count: 16)
        guard RAND_bytes(&salt, Int32(salt.count)) == 1 else { return nil }
        guard let key = derive(password, salt: salt, costExponent: costExponent, blockSize: 8, parallelism: 1) else { return nil }
        return ConsolePassword(costExponent: costExponent, blockSize: 8, parallelism: 1, salt: salt, key: key)
    }

    /// Reads the stored line; nil when it is not one this code wrote (or its parameters are absurd).
    public init?(stored text: String) {
        let fields = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0] == "scrypt",
              let exponent = Int(fields[1]), (10...20).contains(exponent),
              let blockSize = Int(fields[2]), (1...16).contains(blockSize),
              let parallelism = Int(fields[3]), (1...4).contains(parallelism),
              let salt = Self.bytes(hex: fields[4]), salt.count >= 16,
              let key = Self.bytes(hex: fields[5]), key.count == Self.keyLength
        else { return nil }
        self.init(costExponent: exponent, blockSize: blockSize, parallelism: parallelism, salt: salt, key: key)
    }

    init(costExponent: Int, blockSize: Int, parallelism: Int, salt: [UInt8], key: [UInt8]) {
        self.costExponent = costExponent
        self.blockSize = blockSize
        self.parallelism = parallelism
        self.salt = salt
        self.key = key
    }

    public var stored: String {
        "scrypt$\(costExponent)$\(blockSize)$\(parallelism)$\(Hex.encode(salt))$\(Hex.encode(key))\n"
    }

    /// Whether the password is this one, compared in constant time.
    public func matches(_ password: String) -> Bool {
        guard let candidate = Self.derive(password, salt: salt, costExponent: costExponent, blockSize: blockSize, parallelism: parallelism),
              candidate.count == key.count
        else { return false }
        return candidate.withUnsafeBytes { left in key.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, key.count) } } == 0
    }

    /// A password for the administrator to pass on: 20 letters and digits (about 119 bits).
    public static func generated() -> String? {
        let alphabet = Array("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        var result = ""
        while result.count < 20 {
            var byte: UInt8 = 0
            guard RAND_bytes(&byte, 1) == 1 else { return nil }
            // Rejection keeps every character equally likely.
            let limit = 256 - 256 % alphabet.count
            if Int(byte) < limit { result.append(alphabet[Int(byte) % alphabet.count]) }
        }
        return result
    }

    private static func derive(_ password: String, salt: [UInt8], costExponent: Int, blockSize: Int, parallelism: Int) -> [UInt8]? {
        let secret = Array(password.utf8)
        var key = [UInt8](repeating: 0, count: keyLength)
        let cost = UInt64(1) << UInt64(costExponent)
        let memory = 129 * cost * UInt64(blockSize) * UInt64(parallelism) + 1 << 20
        let result = secret.withUnsafeBufferPointer { secretBytes in
            EVP_PBE_scrypt(
                secretBytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }, secret.count,
                salt, salt.count, cost, UInt64(blockSize), UInt64(parallelism), memory, &key, key.count)
        }
        return result == 1 ? key : nil
    }

    /// The salt and key as `stored` writes them: lower-case hex only.
    static func bytes(hex text: Substring) -> [UInt8]? {
        guard !text.contains(where: \.isUppercase) else { return nil }
        return Hex.decode(String(text))
    }
}
