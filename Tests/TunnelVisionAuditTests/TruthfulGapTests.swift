import Foundation
import Testing
@testable import TunnelVisionAudit
import TunnelVisionModel

/// An empty connection is its own gap in the encryption and TLS version checks; a
/// stream picked up mid-way keeps "opening not read".
struct TruthfulGapTests {
    static func flow(port: UInt16, payload: TCPPayloadSighting?) -> StoredFlow {
        var flow = Fixture.flow(1, port: port)
        flow.state.tcpPayload = payload
        return flow
    }

    @Test(arguments: [UInt16(443), 80])
    func anEmptyConnectionIsNothingSentForTheEncryptionCheck(port: UInt16) {
        #expect(EncryptionAssessment(of: Self.flow(port: port, payload: .noneSinceStart)) == .notAssessed(.nothingSent))
    }

    @Test(arguments: [TCPPayloadSighting.carried, nil])
    func aStreamWithPayloadOrNoSeenStartIsOpeningNotRead(payload: TCPPayloadSighting?) {
        #expect(EncryptionAssessment(of: Self.flow(port: 443, payload: payload)) == .notAssessed(.openingNotRead))
    }

    @Test func anEmptyConnectionTo443IsNothingSentForTheTLSVersionCheck() {
        #expect(TLSVersionAssessment(of: Self.flow(port: 443, payload: .noneSinceStart), minimum: .tls12) == .notAssessed(.nothingSent))
        #expect(TLSVersionAssessment(of: Self.flow(port: 443, payload: .carried), minimum: .tls12) == .notAssessed(.serverAnswerNotRead))
        // To 80 nothing suggests TLS at all.
        #expect(TLSVersionAssessment(of: Self.flow(port: 80, payload: .noneSinceStart), minimum: .tls12) == .notApplicable)
    }

    @Test(arguments: [HelloRetryReading.retryOnly, .serverHelloAfterRetry, .notToldApart])
    func theObservationKeepsWhichMessageOfARetriedAnswerWasRead(retry: HelloRetryReading) {
        let flow = Fixture.flow(1, server: .negotiated(TLSNegotiation(version: .tls13, cipherSuite: CipherSuite(0x1301), helloRetry: retry)))
        let observation = TLSVersionObservation(of: flow)
        #expect(observation?.basis == .serverHello(helloRetry: retry))
        #expect(observation?.fromHelloRetryRequest == true)
    }
}
