import COpenSSL
import TunnelVisionModel

/// Which end protected an Initial: each derives its keys from the same Destination Connection ID
/// with its own label (RFC 9001 § 5.2).
public enum InitialSender: Sendable, Hashable {
    case client
    case server

    var label: String {
        switch self {
        case .client: "client in"
        case .server: "server in"
        }
    }
}

/// The Initial packet protection keys of one end (RFC 9001 § 5.2, RFC 9369 § 3.3), derived from
/// the Destination Connection ID the client first chose.
public struct InitialKeys: Sendable, Hashable {
    public let key: [UInt8]
    public let iv: [UInt8]
    public let headerProtection: [UInt8]

    /// Nil for a version whose Initial protection is not published.
    public init?(_ sender: InitialSender, of version: QUICVersion, destinationConnectionID: UnsafeRawBufferPointer) {
        guard let protection = InitialProtection(version),
              let initial = HKDF.extract(salt: protection.salt, keyMaterial: Array(destinationConnectionID)),
              let secret = HKDF.expandLabel(secret: initial, label: sender.label, length: 32),
              let key = HKDF.expandLabel(secret: secret, label: protection.labelPrefix + "key", length: 16),
              let iv = HKDF.expandLabel(secret: secret, label: protection.labelPrefix + "iv", length: 12),
              let hp = HKDF.expandLabel(secret: secret, label: protection.labelPrefix + "hp", length: 16)
        else { return nil }
        self.key = key
        self.iv = iv
        self.headerProtection = hp
    }
}

/// The published Initial salts: RFC 9001 (v1, and drafts 33–34, which already used it), RFC 9369
/// (v2, which also renames the labels and the packet types), the salts of drafts 22, 23–28 and
/// 29–32, Facebook mvfst's draft-based versions and Google's T050/T051. Being able to open a
/// version's Initial says nothing of how well it protects: that table is `QUICVersion`'s.
struct InitialProtection {
    let salt: [UInt8]
    let labelPrefix: String
    /// Initial is packet type 0 everywhere but in v2, where it is 1 (and Retry 0 instead of 3).
    let initialType: UInt8
    let retryType: UInt8

    init?(_ version: QUICVersion) {
        let salt: [UInt8]
        switch version.rawValue {
        case 0x0000_0001, 0xFF00_0021...0xFF00_0022: salt = Self.v1
        case 0x6B33_43CF:
            (self.salt, labelPrefix, initialType, retryType) = (Self.v2, "quicv2 ", 1, 0)
            return
        case 0xFF00_001D...0xFF00_0020: salt = Self.draft29
        case 0xFF00_0017...0xFF00_001C, 0xFACE_B002, 0xFACE_B00E: salt = Self.draft23
        case 0xFF00_0016, 0xFACE_B001: salt = Self.draft22
        case 0x5430_3530: salt = Self.t050
        case 0x5430_3531: salt = Self.t051
        default: return nil
        }
        (self.salt, labelPrefix, initialType, retryType) = (salt, "quic ", 0, 3)
    }

    private static let v1: [UInt8] = [
        0x38, 0x76, 0x2C, 0xF7, 0xF5, 0x59, 0x34, 0xB3, 0x4D, 0x17,
        0x9A, 0xE6, 0xA4, 0xC8, 0x0C, 0xAD, 0xCC, 0xBB, 0x7F, 0x0A,
    ]
    private static let v2: [UInt8] = [
        0x0D, 0xED, 0xE3, 0xDE, 0xF7, 0x00, 0xA6, 0xDB, 0x81, 0x93,
        0x81, 0xBE, 0x6E, 0x26, 0x9D, 0xCB, 0xF9, 0xBD, 0x2E, 0xD9,
    ]
    private static let draft29: [UInt8] = [
        0xAF, 0xBF, 0xEC, 0x28, 0x99, 0x93, 0xD2, 0x4C, 0x9E, 0x97,
        0x86, 0xF1, 0x9C, 0x61, 0x11, 0xE0, 0x43, 0x90, 0xA8, 0x99,
    ]
    private static let draft23: [UInt8] = [
        0xC3, 0xEE, 0xF7, 0x12, 0xC7, 0x2E, 0xBB, 0x5A, 0x11, 0xA7,
        0xD2, 0x43, 0x2B, 0xB4, 0x63, 0x65, 0xBE, 0xF9, 0xF5, 0x02,
    ]
    private static let draft22: [UInt8] = [
        0x7F, 0xBC, 0xDB, 0x0E, 0x7C, 0x66, 0xBB, 0xE9, 0x19, 0x3A,
        0x96, 0xCD, 0x21, 0x51, 0x9E, 0xBD, 0x7A, 0x02, 0x64, 0x4A,
    ]
    private static let t050: [UInt8] = [
        0x7F, 0xF5, 0x79, 0xE5, 0xAC, 0xD0, 0x72, 0x91, 0x55, 0x80,
        0x30, 0x4C, 0x43, 0xA2, 0x36, 0x7C, 0x60, 0x48, 0x83, 0x10,
    ]
    private static let t051: [UInt8] = [
        0x7A, 0x4E, 0xDE, 0xF4, 0xE7, 0xCC, 0xEE, 0x5F, 0xA4, 0x50,
        0x6C, 0x19, 0x12, 0x4F, 0xC8, 0xCC, 0xDA, 0x6E, 0x03, 0x3D,
    ]
}

extension QUICVersion {
    /// Whether its Initial packets can be opened: the salt is published.
    public var hasReadableInitials: Bool { InitialProtection(self) != nil }
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
