import TunnelVisionModel

/// A TLS version as the documents write it: the wire value always, the name only when published.
public struct EvidenceTLSVersion: Encodable, Sendable, Hashable {
    public let wireValue: UInt16
    public let name: String?

    public init(_ version: TLSProtocolVersion) {
        wireValue = version.wireValue
        name = version.name
    }
}

/// A cipher suite or QUIC version: the wire value and its hex form ("0xC02F").
public struct EvidenceCodePoint: Encodable, Sendable, Hashable {
    public let wireValue: UInt32
    public let hex: String

    public init(_ suite: CipherSuite) {
        wireValue = UInt32(suite.wireValue)
        hex = suite.hex
    }

    public init(_ version: QUICVersion) {
        wireValue = version.wireValue
        hex = version.hex
    }
}
