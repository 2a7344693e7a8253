import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionDigest
import TunnelVisionEvidence

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
