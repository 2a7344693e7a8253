import PacketBuilding
import Testing
import TunnelVisionModel
@testable import TunnelVisionWire

@Suite struct ClientHelloTests {
    static func read(_ extensions: [(UInt16, [UInt8])]?, legacyVersion: UInt16 = 0x0303) -> ClientHelloReading? {
        PacketBuilder.clientHelloBody(legacyVersion: legacyVersion, extensions: extensions).withUnsafeBytes {
            ClientHelloReading(body: $0)
        }
    }

    @Test(arguments: [
        ("Example.COM", "example.com"),
        ("api.health-app.de", "api.health-app.de"),
        ("_dmarc.example.com", "_dmarc.example.com"),
        // The root's trailing dot names the same host: read without it (kept as sent, below).
        ("example.com.", "example.com"),
        ("example.com..", nil),
        (".", nil),
        (String(repeating: "abcdefghi.", count: 25) + "abc.", String(repeating: "abcdefghi.", count: 25) + "abc"),
        ("exa mple.com", nil),
        ("a..b", nil),
        ("münchen.de", nil),
        (String(repeating: "a", count: 64) + ".com", nil),
        (String(repeating: "abcdefghi.", count: 25) + "abcd", nil),
    ] as [(String, String?)])
    func serverNameMustBeAnRFC6066HostName(announced: String, expected: String?) {
        let reading = Self.read([PacketBuilder.serverNameExtension(announced)])
        #expect(reading?.serverName == expected)
        #expect(reading?.offer != nil)
    }

    @Test func aTrailingDotIsKeptAsSentBesideTheNormalisedName() {
        let dotted = Self.read([PacketBuilder.serverNameExtension("Tls13.Lab.")])
        #expect(dotted?.serverName == "tls13.lab")
        #expect(dotted?.serverNameAsSent == "tls13.lab.")
        #expect(Self.read([PacketBuilder.serverNameExtension("tls13.lab")])?.serverNameAsSent == nil)
    }

    @Test(arguments: [
        ([0x0A0A, 0x0304, 0x0303], [0x0304, 0x0303], 1),
        ([0x7F1C, 0x0304], [0x7F1C, 0x0304], 0),
        ([0x3A3A], [], 1),
    ] as [([UInt16], [UInt16], Int)])
    func supportedVersionsAreListedWithoutGREASE(offered: [UInt16], listed: [UInt16], dropped: Int) throws {
        let offer = try #require(Self.read([PacketBuilder.supportedVersionsExtension(offered)])?.offer)
        #expect(offer.versionsForm == .listed)
        #expect(offer.versions.map(\.rawValue) == listed)
        #expect(offer.droppedIdentifiers == dropped)
    }

    @Test(arguments: [nil, [(UInt16(10), [UInt8]([0, 2, 0, 29]))]] as [[(UInt16, [UInt8])]?])
    func withoutSupportedVersionsTheLegacyVersionIsACeiling(extensions: [(UInt16, [UInt8])]?) throws {
        let offer = try #require(Self.read(extensions, legacyVersion: 0x0302)?.offer)
        #expect(offer.versionsForm == .upTo)
        #expect(offer.versions == [.tls11])
    }

    @Test func alpnKeepsSixteenPrintableNamesAndCountsTheRest() throws {
        var names: [[UInt8]] = [[0x1A, 0x1A], Array("h2".utf8), Array("has space".utf8), [UInt8](repeating: 0x61, count: 65)]
        names += (0..<17).map { Array("p\($0)".utf8) }
        let offer = try #require(Self.read([PacketBuilder.alpnExtension(names)])?.offer)
        #expect(offer.applicationProtocols.count == 16)
        #expect(offer.applicationProtocols.first == "h2")
        // "has space", the 65-byte name, and the two names beyond sixteen; GREASE is not counted.
        #expect(offer.omittedApplicationProtocols == 4)
        #expect(offer.droppedIdentifiers == 1)
    }

    @Test func encryptedClientHelloExtensionIsNoted() throws {
        let offer = try #require(Self.read([(65037, [0, 1, 2])])?.offer)
        #expect(offer.hasEncryptedClientHello)
    }

    @Test func theFirstCopyOfAnExtensionWins() {
        let reading = Self.read([PacketBuilder.serverNameExtension("first.example"), PacketBuilder.serverNameExtension("second.example")])
        #expect(reading?.serverName == "first.example")
    }

    @Test func anUnwalkableBlockLosesTheOfferButKeepsTheName() throws {
        var body = PacketBuilder.clientHelloBody(extensions: [PacketBuilder.serverNameExtension("kept.example")])
        body += [0x00, 0x2B, 0x00, 0x09]  // an extension claiming 9 bytes past the end
        // The extensions' length sits after version, random, session id, suites and compression.
        let blockLength = 2 + 32 + 1 + 6 + 2
        body[blockLength + 1] &+= 4
        let reading = try #require(body.withUnsafeBytes { ClientHelloReading(body: $0) })
        #expect(reading.serverName == "kept.example")
        #expect(reading.offer == nil)
    }

    @Test func sslv2FormatHelloOffersItsVersionAsACeiling() throws {
        // Length 0x802e, type 1 (CLIENT-HELLO), version 3.1, then cipher/session/challenge lengths.
        let stream = bytes("802e 01 0301 0015 0000 0010") + [UInt8](repeating: 0, count: 37)
        let reading = try #require(stream.withUnsafeBytes { SSLv2ClientHello.read($0) })
        #expect(reading.offer == ClientTLSOffer(versionsForm: .upTo, versions: [.tls10]))
    }
}

@Suite struct HandshakeReaderTests {
    static let hello = PacketBuilder.handshakeRecord(type: 1, body: PacketBuilder.clientHelloBody(extensions: [
        PacketBuilder.serverNameExtension("split.example"),
    ]))

    /// The same ClientHello message cut across two records, fed in growing prefixes.
    @Test func stitchesAClientHelloAcrossRecordsAndSegments() {
        let message = Array(Self.hello.dropFirst(5))
        var stream: [UInt8] = []
        for part in [Array(message.prefix(20)), Array(message.dropFirst(20))] {
            stream += [22, 3, 1, UInt8(part.count >> 8), UInt8(part.count & 0xFF)] + part
        }
        var reader = ClientHandshakeReader()
        for cut in [3, 30, stream.count - 1] {
            Array(stream.prefix(cut)).withUnsafeBytes { reader.advance(over: $0) }
            #expect(!reader.isSettled)
        }
        stream.withUnsafeBytes { reader.advance(over: $0) }
        #expect(reader.isSettled)
        #expect(reader.reading?.serverName == "split.example")
    }

    @Test func somethingOtherThanTLSSettlesWithoutAReading() {
        var reader = ClientHandshakeReader()
        Array("GET / HTTP/1.1\r\n".utf8).withUnsafeBytes { reader.advance(over: $0) }
        #expect(reader.isSettled)
        #expect(reader.reading == nil)
    }

    static let helloRetryRandom = ServerHelloReading.helloRetryRequestRandom

    @Test(arguments: [
        // A TLS 1.3 ServerHello: version from supported_versions.
        ([PacketBuilder.handshakeRecord(type: 2, body: PacketBuilder.serverHelloBody(cipherSuite: 0x1301, extensions: [(43, [3, 4])]))],
         ServerTLSAnswer.negotiated(TLSNegotiation(version: .tls13, cipherSuite: CipherSuite(0x1301)))),
        // A HelloRetryRequest, then the real ServerHello: the real one, read after the retry.
        ([PacketBuilder.handshakeRecord(type: 2, body: PacketBuilder.serverHelloBody(random: helloRetryRandom, cipherSuite: 0x1302, extensions: [(43, [3, 4])])),
          PacketBuilder.handshakeRecord(type: 2, body: PacketBuilder.serverHelloBody(cipherSuite: 0x1301, extensions: [(43, [3, 4])]))],
         .negotiated(TLSNegotiation(version: .tls13, cipherSuite: CipherSuite(0x1301), helloRetry: .serverHelloAfterRetry))),
        // A HelloRetryRequest alone: the reading is the retry's.
        ([PacketBuilder.handshakeRecord(type: 2, body: PacketBuilder.serverHelloBody(random: helloRetryRandom, cipherSuite: 0x1302, extensions: [(43, [3, 4])]))],
         .negotiated(TLSNegotiation(version: .tls13, cipherSuite: CipherSuite(0x1302), helloRetry: .retryOnly))),
        // A fatal alert instead.
        ([bytes("15 0303 0002 02 28")], .refused(alert: 40)),
        // A warning alert, then the ServerHello, which replaces it.
        ([bytes("15 0303 0002 01 70"), PacketBuilder.handshakeRecord(type: 2, body: PacketBuilder.serverHelloBody(cipherSuite: 0xC02F, extensions: nil))],
         .negotiated(TLSNegotiation(version: .tls12, cipherSuite: CipherSuite(0xC02F)))),
    ] as [([[UInt8]], ServerTLSAnswer)])
    func readsTheServersAnswer(records: [[UInt8]], expected: ServerTLSAnswer) {
        var reader = ServerHandshakeReader()
        var cache = CertificateSummaryCache()
        records.flatMap { $0 }.withUnsafeBytes { reader.advance(over: $0, certificates: &cache) }
        #expect(reader.answer == expected)
    }

    @Test func aListInTheServersSupportedVersionsIsMalformed() {
        let body = PacketBuilder.serverHelloBody(cipherSuite: 0x1301, extensions: [(43, [2, 3, 4])])
        #expect(body.withUnsafeBytes { ServerHelloReading(body: $0) } == nil)
    }

    @Test(arguments: [
        (UInt8(14), ServerCertificateReading.notSent(.noCertificateMessage)),
        (UInt8(12), .notSent(.noCertificateMessage)),
        (UInt8(4), .notSent(.resumedSession)),
    ])
    func whatCameInsteadOfACertificate(type: UInt8, expected: ServerCertificateReading) {
        let stream = PacketBuilder.handshakeRecord(type: 2, body: PacketBuilder.serverHelloBody(cipherSuite: 0xC02F, extensions: nil))
            + PacketBuilder.handshakeRecord(type: type, body: [])
        var reader = ServerHandshakeReader()
        var cache = CertificateSummaryCache()
        stream.withUnsafeBytes { reader.advance(over: $0, certificates: &cache) }
        #expect(reader.certificates == expected)
        #expect(reader.isSettled)
    }

    @Test func changeCipherSpecAfterTheServerHelloMeansResumption() {
        let stream = PacketBuilder.handshakeRecord(type: 2, body: PacketBuilder.serverHelloBody(cipherSuite: 0xC02F, extensions: nil))
            + bytes("14 0303 0001 01")
        var reader = ServerHandshakeReader()
        var cache = CertificateSummaryCache()
        stream.withUnsafeBytes { reader.advance(over: $0, certificates: &cache) }
        #expect(reader.certificates == .notSent(.resumedSession))
    }
}

@Suite struct CertificateChainTests {
    @Test(arguments: [
        bytes("000000"),                 // an empty list: nothing was sent, nothing left out
        bytes("000005 000002 3000"),     // a certificate that is not DER
        bytes("00ffff 000003 300100"),   // a list longer than the message
    ])
    func readsWhatItCanAndSaysWhetherAnythingWasLeftOut(body: [UInt8]) {
        var cache = CertificateSummaryCache()
        let reading = body.withUnsafeBytes { CertificateChain.read(body: $0, statedLength: body.count, cache: &cache) }
        switch reading {
        case .presented(let chain, let complete)?:
            #expect(chain.isEmpty)
            #expect(complete == (body.count == 3))
        case .notSent?:
            Issue.record("a Certificate message is never notSent")
        case nil:
            #expect(body.count != 3)
        }
    }
}
