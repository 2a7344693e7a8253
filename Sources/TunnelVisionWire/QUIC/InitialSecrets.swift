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
/// 29–32, Facebook mvfst's draft-based versions and Google's Q050, T050 and T051. Being able to open a
/// version's Initial says nothing of how well it protects: that table is `QUICVersion`'s.
struct InitialProtection {
    let salt: [UInt8]
    let labelPrefix: String
    /// Initial is packet type 0 everywhere but in v2, where it is 1 (and Retry 0 instead of 3).
    let initialType: UInt8
    let retryType: UInt8

    init?(_ version: QUICVersion) {
        guard let entry = Self.published.first(where: { $0.versions.contains { $0.contains(version.rawValue) } })
        else { return nil }
        salt = entry.salt
        (labelPrefix, initialType, retryType) = entry.isVersion2 ? ("quicv2 ", 1, 0) : ("quic ", 0, 3)
    }

    /// Versions, their salt in hex, and whether they take v2's labels and packet types.
    private static let table: [(versions: [ClosedRange<UInt32>], salt: String, isVersion2: Bool)] = [
        ([0x0000_0001...0x0000_0001, 0xFF00_0021...0xFF00_0022], "38762cf7f55934b34d179ae6a4c80cadccbb7f0a", false),
        ([0x6B33_43CF...0x6B33_43CF], "0dede3def700a6db819381be6e269dcbf9bd2ed9", true),
        ([0xFF00_001D...0xFF00_0020], "afbfec289993d24c9e9786f19c6111e04390a899", false),
        ([0xFF00_0017...0xFF00_001C, 0xFACE_B002...0xFACE_B002, 0xFACE_B00E...0xFACE_B00E], "c3eef712c72ebb5a11a7d2432bb46365bef9f502", false),
        ([0xFF00_0016...0xFF00_0016, 0xFACE_B001...0xFACE_B001], "7fbcdb0e7c66bbe9193a96cd21519ebd7a02644a", false),
        ([0x5130_3530...0x5130_3530], "504574efd066fe2f9d945cfcdbd3a7f0d3b56b45", false),
        ([0x5430_3530...0x5430_3530], "7ff579e5acd072915580304c43a2367c60488310", false),
        ([0x5430_3531...0x5430_3531], "7a4edef4e7ccee5fa4506c19124fc8ccda6e033d", false),
    ]

    /// The table with its salts as bytes, read once.
    private static let published = table.map { entry in
        (versions: entry.versions, salt: bytes(hex: entry.salt), isVersion2: entry.isVersion2)
    }

    private static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8).map { UInt8(($0 & 0x0F) + ($0 > 0x39 ? 9 : 0)) }
        return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }
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
