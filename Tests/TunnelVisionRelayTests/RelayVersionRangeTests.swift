import Testing
import TunnelVisionModel
@testable import TunnelVisionRelay

@Suite struct RelayVersionRangeTests {
    @Test(arguments: [
        (ClientTLSOffer(versionsForm: .listed, versions: [.tls13, .tls12]), TLSProtocolVersion.tls12, TLSProtocolVersion.tls13, false),
        (ClientTLSOffer(versionsForm: .listed, versions: [.tls13]), .tls13, .tls13, false),
        (ClientTLSOffer(versionsForm: .listed, versions: [.tls13, .tls12, .tls11, .tls10]), .tls10, .tls13, true),
        (ClientTLSOffer(versionsForm: .listed, versions: [TLSProtocolVersion(0x7F1C), .tls12]), .tls12, .tls12, false),
        (ClientTLSOffer(versionsForm: .listed, versions: [.ssl3]), .tls10, .tls10, true),
        (ClientTLSOffer(versionsForm: .upTo, versions: [.tls12]), .tls10, .tls12, true),
    ] as [(ClientTLSOffer, TLSProtocolVersion, TLSProtocolVersion, Bool)])
    func bothLegsMirrorThePhonesOffer(offer: ClientTLSOffer, minimum: TLSProtocolVersion, maximum: TLSProtocolVersion, levelZero: Bool) throws {
        let range = try #require(RelayVersionRange(offer: offer))
        #expect(range.minimum == minimum)
        #expect(range.maximum == maximum)
        #expect(range.needsSecurityLevelZero == levelZero)
    }

    @Test func anOfferWithoutAPublishedVersionLeavesOpenSSLsDefaults() {
        #expect(RelayVersionRange(offer: ClientTLSOffer(versionsForm: .listed, versions: [TLSProtocolVersion(0x7F1C)])) == nil)
        #expect(RelayVersionRange(offer: nil) == nil)
    }
}
