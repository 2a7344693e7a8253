import Testing
import TunnelVisionModel
@testable import TunnelVisionWire

@Suite struct QUICTests {
    /// RFC 9001 Appendix A.1 and RFC 9369 Appendix A.1: both ends' Initial keys for DCID 8394c8f03e515708.
    @Test(arguments: [
        (InitialSender.client, QUICVersion.v1, "1f369613dd76d5467730efcbe3b1a22d", "fa044b2f42a3fd3b46fb255c", "9f50449e04a0e810283a1e9933adedd2"),
        (.client, .v2, "8b1a0bc121284290a29e0971b5cd045d", "91f73e2351d8fa91660e909f", "45b95e15235d6f45a6b19cbcb0294ba9"),
        (.server, .v1, "cf3a5331653c364c88f0f379b6067e37", "0ac1493ca1905853b0bba03e", "c206b8d9b9f0f37644430b490eeaa314"),
        (.server, .v2, "82db637861d55e1d011f19ea71d5d2a7", "dd13c276499c0249d3310652", "edf6d05c83121201b436e16877593c3a"),
    ])
    func derivesTheInitialKeysOfTheRFCs(sender: InitialSender, version: QUICVersion, key: String, iv: String, hp: String) throws {
        let keys = try #require(bytes("8394c8f03e515708").withUnsafeBytes {
            InitialKeys(sender, of: version, destinationConnectionID: $0)
        })
        #expect(keys.key == bytes(key))
        #expect(keys.iv == bytes(iv))
        #expect(keys.headerProtection == bytes(hp))
    }

    /// Drafts, mvfst and Google's Q050, T050 and T051 have published salts; Q046 and unknown
    /// versions have none, and neither drafts nor these count as protecting versions.
    @Test(arguments: [
        (0xFF00_001D as UInt32, true), (0xFF00_0017, true), (0xFF00_0020, true), (0xFF00_0022, true),
        (0xFACE_B002, true), (0x5430_3531, true), (0x5130_3530, true), (0x5130_3436, false), (0xFF00_0014, false), (0x1A2A_3A4A, false),
    ])
    func draftsAreReadableWithoutBecomingKnownVersions(version: UInt32, readable: Bool) {
        let quic = QUICVersion(version)
        let keys = bytes("8394c8f03e515708").withUnsafeBytes { InitialKeys(.client, of: quic, destinationConnectionID: $0) }
        #expect((keys != nil) == readable)
        #expect(quic.hasReadableInitials == readable)
        #expect(!quic.hasKnownPacketProtection)
    }

    @Test(arguments: [
        (bytes("c0 00000001 08 0102030405060708 00 00"), UInt32?.some(1), true),
        (bytes("d0 6b3343cf 00 00 00"), 0x6B33_43CF, true),
        (bytes("c0 00000000 00 00"), nil, false),           // version negotiation
        (bytes("80 00000001 00 00"), 1, true),              // fixed bit clear (RFC 9287 greasing)
        (bytes("c0 00000001 15") + [UInt8](repeating: 1, count: 21) + [0], nil, false),  // v1 DCID over 20 bytes
        (bytes("c0 00000001 08 0102"), nil, false),          // DCID cut short
        (bytes("40 0102030405"), nil, false),               // short header
    ] as [([UInt8], UInt32?, Bool)])
    func readsLongHeadersByRFC8999(datagram: [UInt8], version: UInt32?, readable: Bool) {
        let header = datagram.withUnsafeBytes { QUICLongHeader($0) }
        #expect((header != nil) == readable)
        #expect(header?.version.rawValue == version)
    }

    @Test func theFixedBitIsReadNotRequired() throws {
        let greased = try #require(bytes("80 00000001 00 00").withUnsafeBytes { QUICLongHeader($0) })
        let fixed = try #require(bytes("c0 00000001 00 00").withUnsafeBytes { QUICLongHeader($0) })
        #expect(!greased.hasFixedBit && fixed.hasFixedBit)
    }

    @Test func initialAndRetryTypesDifferBetweenV1AndV2() throws {
        let v1Initial = try #require(bytes("c0 00000001 00 00 00").withUnsafeBytes { QUICLongHeader($0) })
        let v2Initial = try #require(bytes("d0 6b3343cf 00 00 00").withUnsafeBytes { QUICLongHeader($0) })
        let v2Retry = try #require(bytes("c0 6b3343cf 00 00 00").withUnsafeBytes { QUICLongHeader($0) })
        #expect(v1Initial.isInitial && v2Initial.isInitial)
        #expect(v2Retry.isRetry && !v2Retry.isInitial)
    }

    @Test func cryptoFramesAreHandedOverByOffsetPastPaddingAndAcks() {
        // PADDING, PING, ACK (largest 5, delay 0, 0 ranges, first 0), CRYPTO(offset 3, "def"), CRYPTO(0, "abc").
        let frames = bytes("00 01 02 05 00 00 00 06 03 03 646566 06 00 03 616263")
        var seen: [(UInt64, String)] = []
        frames.withUnsafeBytes { CryptoFrames.forEach(in: $0) { seen.append(($0, String(decoding: $1, as: UTF8.self))) } }
        #expect(seen.map(\.0) == [3, 0])
        #expect(seen.map(\.1) == ["def", "abc"])
    }

    @Test func aCryptoFrameLongerThanThePacketEndsTheWalk() {
        var count = 0
        bytes("06 00 40 ff 616263").withUnsafeBytes { CryptoFrames.forEach(in: $0) { _, _ in count += 1 } }
        #expect(count == 0)
    }
}
