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

/// A record that began mid-connection (after a restart of the daemon) had no name to carry: it
/// is no unnamedFlow finding and no O.Purp_8 contradiction, yet a named one is judged as ever.
@Suite struct ContinuationFindingTests {
    static func continuation(_ id: Int64, _ kind: FlowContinuation = .openedBeforeCapture, sni: String? = nil) -> StoredFlow {
        var flow = Fixture.flow(id, sni: sni)
        flow.state.continuation = kind
        return flow
    }

    @Test(arguments: FlowContinuation.allCases)
    func anUnnamedContinuationIsNotAssessedForItsHost(kind: FlowContinuation) {
        #expect(HostAssessment(of: Self.continuation(1, kind), project: Fixture.project(allowing: ["api.example.com"]))
            == .notAssessed(.continuation))
    }

    @Test func fiftyUnnamedContinuationsMakeNoFinding() {
        let flows = (1...50).map { Self.continuation(Int64($0)) }
        let findings = FindingsClassifier.classify(
            flows: flows, project: Fixture.project(allowing: ["api.example.com"]), session: Fixture.session(), markers: [],
            policy: FindingsPolicy(minimumTLSVersion: .tls12)!)
        #expect(findings.findings.allSatisfy { $0.kind != .unnamedFlow })
        #expect(findings.host.unassessed.map(\.reason) == [.continuation])
        #expect(findings.host.unassessed.first?.flowIDs.count == 50)
    }

    @Test func aNamedContinuationIsJudgedByItsName() {
        let flow = Self.continuation(1, sni: "tracker.example.org")
        #expect(HostAssessment(of: flow, project: Fixture.project(allowing: ["api.example.com"]))
            == .notInAllowlist(host: "tracker.example.org"))
    }

    @Test func anUnnamedRecordThatBeganWithItsOpeningIsStillAFinding() {
        #expect(HostAssessment(of: Fixture.flow(1), project: Fixture.project(allowing: ["api.example.com"])) == .unnamed(.noClientHelloRead))
    }
}
