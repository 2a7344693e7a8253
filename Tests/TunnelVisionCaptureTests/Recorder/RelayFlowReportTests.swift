import Testing
import TunnelVisionModel
@testable import TunnelVisionRecorder
import TunnelVisionRelay

/// What the flow keeps of the relay's report: the relay's own failures and the mirror are facts
/// of their own, never the phone's refusal (no notInspectable, no alert taken for the phone's).
@Suite struct RelayFlowReportTests {
    static func report(_ event: RelayEvent?, outcome: RelayOutcome? = nil, presentation: RelayPresentation? = nil) -> RelayReport {
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
        let flow = RelayFlowReport(Self.report(.relaySentAlert(alert: 50, reason: "decode error")))
        #expect(flow.outcome == nil)
        #expect(flow.facts.event == "relaySentAlert")
        #expect(flow.facts.alert == 50)
        #expect(flow.facts.reason == "decode error")
        #expect(Self.report(.relaySentAlert(alert: 50, reason: "x")).record == .relayFailed)
    }

    @Test func aRefusedMirrorIsNoOutcomeAndSaysWhatWasShown() {
        let flow = RelayFlowReport(Self.report(.phoneRefusedMirroredCertificate(alert: 48), presentation: .mirroredUntrustedIssuer))
        #expect(flow.outcome == nil)
        #expect(flow.facts.alert == 48)
        #expect(flow.facts.presented == "mirroredUntrustedIssuer")
        #expect(flow.facts.serverNameAsSent == "self.lab.")
    }

    @Test func aDestinationRefusedByPolicySaysWhy() {
        var report = Self.report(.upstreamRefusedByPolicy(.gatewayAddress))
        report.decision = nil
        let flow = RelayFlowReport(report)
        #expect(flow.facts.decision == "undecided")
        #expect(flow.facts.event == "upstreamRefusedByPolicy")
        #expect(flow.facts.reason == "gatewayAddress")
    }
}
