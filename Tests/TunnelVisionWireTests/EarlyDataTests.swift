import PacketBuilding
import Testing
import TunnelVisionModel
@testable import TunnelVisionWire

/// 0-RTT early data: what the wire proves of it, and no more.
@Suite struct EarlyDataTests {
    static let hello = PacketBuilder.handshakeRecord(type: 1, body: PacketBuilder.clientHelloBody(extensions: []))
    static let changeCipherSpec: [UInt8] = [20, 3, 3, 0, 1, 1]
    static let application: [UInt8] = [23, 3, 3, 0, 3, 9, 9, 9]

    static func follows(_ records: [UInt8]) -> Bool? {
        records.withUnsafeBytes { EarlyDataRecords.followHello(in: $0) }
    }

    @Test func anApplicationRecordStraightAfterTheHelloIsEarlyData() {
        #expect(Self.follows(Self.hello + Self.application) == true)
        #expect(Self.follows(Self.hello + Self.changeCipherSpec + Self.application) == true)
        #expect(Self.follows(Self.hello + [21, 3, 3, 0, 2, 2, 40]) == false)  // an alert
    }

    @Test func bytesThatEndFirstDecideNothing() {
        let whole = Self.hello + Self.changeCipherSpec + Self.application
        for cut in 0..<(Self.hello.count + Self.changeCipherSpec.count + 1) {
            #expect(Self.follows(Array(whole.prefix(cut))) == nil, "cut at \(cut)")
        }
        // A record of a length the bytes do not hold is waited for, not skipped.
        #expect(Self.follows([22, 3, 3, 0xFF, 0xFF, 1, 2]) == nil)
    }

    @Test func onlyTheFirstKeyAllowsEarlyData() throws {
        func answer(psk identity: [UInt8]?, supportedVersions: Bool = true) throws -> ServerHelloReading {
            var extensions: [(UInt16, [UInt8])] = supportedVersions ? [(43, [0x03, 0x04])] : []
            if let identity { extensions.append((41, identity)) }
            let body = PacketBuilder.serverHelloBody(cipherSuite: 0x1301, extensions: extensions)
            return try #require(body.withUnsafeBytes { ServerHelloReading(body: $0) })
        }
        #expect(try answer(psk: [0, 0]).selectedIdentity == 0)
        #expect(try answer(psk: [0, 1]).selectedIdentity == 1)
        #expect(try answer(psk: nil).selectedIdentity == nil)
        #expect(try answer(psk: [0]).selectedIdentity == nil)  // malformed: not a key taken
        #expect(try answer(psk: [0, 0], supportedVersions: false).selectedIdentity == nil)  // TLS 1.2 has no PSK
    }

    @Test func theServersHellosProveARefusalNeverAnAcceptance() {
        func answer(_ bodies: [[UInt8]]) -> EarlyDataReading.ServerAnswer? {
            var progress = ServerAnswerProgress()
            var cache = CertificateSummaryCache()
            for body in bodies {
                _ = body.withUnsafeBytes { progress.take(.handshake(type: 2, body: $0), cache: &cache) }
            }
            return progress.earlyDataAnswer
        }
        let resumed = PacketBuilder.serverHelloBody(cipherSuite: 0x1301, extensions: [(43, [3, 4]), (41, [0, 0])])
        let otherKey = PacketBuilder.serverHelloBody(cipherSuite: 0x1301, extensions: [(43, [3, 4]), (41, [0, 1])])
        let full = PacketBuilder.serverHelloBody(cipherSuite: 0x1301, extensions: [(43, [3, 4])])
        let retry = PacketBuilder.serverHelloBody(
            random: ServerHelloReading.helloRetryRequestRandom, cipherSuite: 0x1301, extensions: [(43, [3, 4])])
        #expect(answer([resumed]) == .notVisible)
        #expect(answer([otherKey]) == .refusedByServerHello)
        #expect(answer([full]) == .refusedByServerHello)
        #expect(answer([retry]) == .refusedByHelloRetryRequest)
        #expect(answer([retry, resumed]) == .refusedByHelloRetryRequest)
        #expect(answer([]) == nil)
    }

    @Test(arguments: [
        EarlyDataReading(), EarlyDataReading(wasSent: true), EarlyDataReading(wasSent: true, serverAnswer: .notVisible),
        EarlyDataReading(serverAnswer: .refusedByHelloRetryRequest), EarlyDataReading(wasSent: true, serverAnswer: .refusedByServerHello),
    ])
    func theStoredValueReadsBackAsItWas(_ reading: EarlyDataReading) {
        #expect(EarlyDataReading(storedValue: reading.storedValue) == reading)
    }

    @Test func aStoredValueWithoutTheOfferOrOutOfRangeIsNoReading() {
        #expect(EarlyDataReading(storedValue: 0) == nil)
        #expect(EarlyDataReading(storedValue: 2) == nil)
        #expect(EarlyDataReading(storedValue: 17) == nil)
        #expect(EarlyDataReading(storedValue: -1) == nil)
    }
}
