import TunnelVisionModel

/// The TLS versions both legs of a termination allow: the phone's own offer, clamped to what
/// OpenSSL builds here carry (TLS 1.0 to 1.3), so that the relay neither refuses a version the
/// app would have used with the server nor offers the server one the app would not.
public struct RelayVersionRange: Sendable, Hashable {
    public let minimum: TLSProtocolVersion
    public let maximum: TLSProtocolVersion

    /// Nil when the offer names no published version: then OpenSSL's defaults stand.
    public init?(offer: ClientTLSOffer?) {
        guard let offer else { return nil }
        let ranks = offer.versions.compactMap(\.publishedRank)
        guard let lowest = ranks.min(), let highest = ranks.max() else { return nil }
        let floor = TLSProtocolVersion.tls10.publishedRank!, ceiling = TLSProtocolVersion.tls13.publishedRank!
        let top = min(max(highest, floor), ceiling)
        // A legacy ceiling (no supported_versions) says nothing of the lowest version.
        let bottom = offer.versionsForm == .upTo ? floor : min(max(lowest, floor), top)
        minimum = TLSProtocolVersion.published[bottom]
        maximum = TLSProtocolVersion.published[top]
    }

    /// OpenSSL 3 allows TLS 1.0 and 1.1 only at security level 0.
    public var needsSecurityLevelZero: Bool { minimum.publishedRank! < TLSProtocolVersion.tls12.publishedRank! }
}
