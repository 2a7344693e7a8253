import COpenSSL
import TunnelVisionModel

/// The client's Initial packet protection keys (RFC 9001 § 5.2, RFC 9369 § 3.3), derived from the
/// Destination Connection ID the client first chose.
public struct InitialKeys: Sendable, Hashable {
    public let key: [UInt8]
    public let iv: [UInt8]
    public let headerProtection: [UInt8]

    private static let v1Salt: [UInt8] = [
        0x38, 0x76, 0x2C, 0xF7, 0xF5, 0x59, 0x34, 0xB3, 0x4D, 0x17,
        0x9A, 0xE6, 0xA4, 0xC8, 0x0C, 0xAD, 0xCC, 0xBB, 0x7F, 0x0A,
    ]
    private static let v2Salt: [UInt8] = [
        0x0D, 0xED, 0xE3, 0xDE, 0xF7, 0x00, 0xA6, 0xDB, 0x81, 0x93,
        0x81, 0xBE, 0x6E, 0x26, 0x9D, 0xCB, 0xF9, 0xBD, 0x2E, 0xD9,
    ]

    /// Nil for a version whose protection is unknown.
    public init?(clientOf version: QUICVersion, destinationConnectionID: UnsafeRawBufferPointer) {
        let salt: [UInt8], labelPrefix: String
        switch version {
        case .v1: (salt, labelPrefix) = (Self.v1Salt, "quic ")
        case .v2: (salt, labelPrefix) = (Self.v2Salt, "quicv2 ")
        default: return nil
        }
        guard let initial = HKDF.extract(salt: salt, keyMaterial: Array(destinationConnectionID)),
              let client = HKDF.expandLabel(secret: initial, label: "client in", length: 32),
              let key = HKDF.expandLabel(secret: client, label: labelPrefix + "key", length: 16),
              let iv = HKDF.expandLabel(secret: client, label: labelPrefix + "iv", length: 12),
              let hp = HKDF.expandLabel(secret: client, label: labelPrefix + "hp", length: 16)
        else { return nil }
        self.key = key
        self.iv = iv
        self.headerProtection = hp
    }
}

/// HKDF-SHA256 (RFC 5869) with TLS 1.3's label encoding (RFC 8446 § 7.1), for outputs of at
/// most one hash block — all QUIC Initial keys need.
enum HKDF {
    static func extract(salt: [UInt8], keyMaterial: [UInt8]) -> [UInt8]? {
        hmac(key: salt, data: keyMaterial)
    }

    static func expandLabel(secret: [UInt8], label: String, length: Int) -> [UInt8]? {
        guard length <= 32 else { return nil }
        let fullLabel = Array("tls13 \(label)".utf8)
        var info: [UInt8] = [UInt8(length >> 8), UInt8(length & 0xFF), UInt8(fullLabel.count)]
        info += fullLabel
        info.append(0)  // empty context
        info.append(1)  // T(1): the first and only block
        return hmac(key: secret, data: info).map { Array($0.prefix(length)) }
    }

    private static func hmac(key: [UInt8], data: [UInt8]) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            data.withUnsafeBytes { dataBytes in
                output.withUnsafeMutableBytes { out in
                    HMAC(EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count),
                         dataBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), dataBytes.count,
                         out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length)
                }
            }
        }
        guard result != nil, length == 32 else { return nil }
        return output
    }
}
