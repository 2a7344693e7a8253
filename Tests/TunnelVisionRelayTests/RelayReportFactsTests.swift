import Testing
import TunnelVisionModel
@testable import TunnelVisionRelay

/// What the flow keeps of the relay's report: the relay's own failures and the mirror are facts
/// of their own, never the phone's refusal (no notInspectable, no alert taken for the phone's).
@Suite struct RelayReportFactsTests {
    static func report(_ event: RelayEvent?, outcome: RelayOutcome? = nil, presentation: ShownLeafKind? = nil) -> RelayReport {
        let leg = RelayPhoneLeg(
            phone: Endpoint(address: IPAddress("10.77.0.2")!, port: 40_000),
            originalDestination: Endpoint(address: IPAddress("198.51.100.30")!, port: 443))
        var report = RelayReport(phoneLeg: leg, accepted: 0)
        report.decision = .terminate(serverName: "self.lab")
        report.serverName = "self.lab"
        report.serverNameAsSent = "self.lab."
        report.event = event
        report.outcome = outcome
        report.presentation = presentation
        return report
    }

    @Test func theRelaysOwnAlertIsItsFailureWithTheCodeAndWhy() {
        let report = Self.report(.relaySentAlert(alert: 50, reason: "decode error"))
        guard case .reported(let facts, let outcome, _) = report.flowUpdate else { Issue.record("not a report"); return }
        #expect(outcome == nil)
        #expect(facts.event == .relaySentAlert)
        #expect(facts.alert == 50)
        #expect(facts.reason == "decode error")
        #expect(report.verdict == .relayFailed)
    }

    @Test func aRefusedMirrorIsNoOutcomeAndSaysWhatWasShown() {
        let report = Self.report(.phoneRefusedMirroredCertificate(alert: 48), presentation: .mirroredUntrustedIssuer)
        guard case .reported(let facts, let outcome, _) = report.flowUpdate else { Issue.record("not a report"); return }
        #expect(outcome == nil)
        #expect(facts.alert == 48)
        #expect(facts.presented == .mirroredUntrustedIssuer)
        #expect(facts.serverNameAsSent == "self.lab.")
        #expect(report.verdict == .refusedMirroredCertificate(alert: 48))
    }

    @Test func aDestinationRefusedByPolicySaysWhy() {
        var report = Self.report(.upstreamRefusedByPolicy(.gatewayAddress))
        report.decision = nil
        #expect(report.facts.decision == .undecided)
        #expect(report.facts.event == .upstreamRefusedByPolicy)
        #expect(report.facts.reason == "gatewayAddress")
    }

    static let upstream = UpstreamReading(
        negotiation: TLSNegotiation(version: .tls13, cipherSuite: CipherSuite(0x1301), source: .upstreamConnection),
        applicationProtocol: "h2", certificateVerified: true, verification: "ok")

    @Test func theServersReadingIsTheFlowsOnlyWhileTheTerminationOwnsIt() {
        var report = Self.report(nil, outcome: .inspected)
        report.upstream = Self.upstream
        guard case .reported(let facts, .inspected?, let owned) = report.flowUpdate else { Issue.record("no outcome"); return }
        #expect(owned == Self.upstream.negotiation)
        #expect(facts.upstreamApplicationProtocol == "h2")
        report.event = .handedToPlainUpstream(reason: "handshake failure")
        guard case .reported(_, _, let handedOver) = report.flowUpdate else { Issue.record("not a report"); return }
        #expect(handedOver == nil)
        report.event = nil
        report.decision = .splice(.notTLS)
        guard case .reported(_, _, let spliced) = report.flowUpdate else { Issue.record("not a report"); return }
        #expect(spliced == nil)
    }
}
