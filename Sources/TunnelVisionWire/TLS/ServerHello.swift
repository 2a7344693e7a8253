import TunnelVisionModel

/// What a ServerHello chose.
public struct ServerHelloReading: Sendable, Hashable {
    public let negotiation: TLSNegotiation
    /// It named its version in supported_versions: TLS 1.3 or a draft of it, whose certificate
    /// travels encrypted.
    public let usedSupportedVersions: Bool
    /// TLS 1.3: it accepted one of the client's pre-shared keys (RFC 8446 § 4.2.11), a resumed
    /// session, for which no certificate is sent.
    public let acceptedPreSharedKey: Bool
    /// TLS 1.3: the index of the client's key it took; only the first (0) can carry early data.
    public let selectedIdentity: UInt16?

    /// RFC 8446 § 4.1.3: a HelloRetryRequest is a ServerHello with this random.
    static let helloRetryRequestRandom: [UInt8] = [
        0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
        0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C,
    ]

    /// Reads a ServerHello body; nil when it is malformed (a list in supported_versions included).
    public init?(body: UnsafeRawBufferPointer) {
        var reader = ByteReader(body)
        guard let legacyVersion = reader.u16(), let random = reader.take(32),
              reader.takeLengthPrefixed(lengthBytes: 1) != nil,
              let suite = reader.u16(), reader.skip(1)
        else { return nil }
        var version = TLSProtocolVersion(legacyVersion)
        var selected = false
        var preSharedKey = false
        var identity: UInt16?
        if !reader.isAtEnd {
            guard let block = reader.takeLengthPrefixed(lengthBytes: 2) else { return nil }
            var extensions = ByteReader(block)
            while !extensions.isAtEnd {
                guard let type = extensions.u16(), let data = extensions.takeLengthPrefixed(lengthBytes: 2) else {
                    return nil
                }
                if type == TLSExtension.preSharedKey {
                    preSharedKey = data.count == 2
                    identity = preSharedKey ? UInt16(data[0]) << 8 | UInt16(data[1]) : nil
                }
                if type == TLSExtension.supportedVersions, !selected {
                    guard data.count == 2 else { return nil }
                    version = TLSProtocolVersion(UInt16(data[0]) << 8 | UInt16(data[1]))
                    selected = true
                }
            }
        }
        negotiation = TLSNegotiation(
            version: version, cipherSuite: CipherSuite(suite),
            fromHelloRetryRequest: random.elementsEqual(Self.helloRetryRequestRandom)
        )
        usedSupportedVersions = selected
        acceptedPreSharedKey = selected && preSharedKey
        selectedIdentity = acceptedPreSharedKey ? identity : nil
    }
}
