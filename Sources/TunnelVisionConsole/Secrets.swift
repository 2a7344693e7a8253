import COpenSSL
import TunnelVisionDigest

/// Random tokens and their comparison, for login sessions and CSRF.
public enum Secrets {
    /// 32 random bytes as 64 hex digits; nil only when the system has no randomness.
    public static func token() -> String? {
        var bytes = [UInt8](repeating: 0, count: 32)
        guard RAND_bytes(&bytes, Int32(bytes.count)) == 1 else { return nil }
        return Hex.encode(bytes)
    }

    /// Equal texts, compared in time that does not depend on where they differ.
    public static func same(_ left: String, _ right: String) -> Bool {
        let a = Array(left.utf8), b = Array(right.utf8)
        guard a.count == b.count, !a.isEmpty else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
