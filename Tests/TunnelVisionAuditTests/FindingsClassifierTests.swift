import Testing
import TunnelVisionAudit
import TunnelVisionModel

@Suite("Findings: grouping and order")
struct FindingsClassifierTests {
    static let policy = FindingsPolicy(minimumTLSVersion: .tls12)!

    static func classify(
        _ flows: [StoredFlow], allowing allowlist: [String] = ["api.example.com"],
        session: Recording = Fixture.session(), markers: [SessionMarker] = []
    ) -> SessionFindings {
        FindingsClassifier.classify(
            flows: flows, project: Fixture.project(allowing: allowlist), session: session, markers: markers, policy: policy)
    }

    @Test("Flows proving the same statement are one finding, the host normalised")
    func identicalStatementsMerge() {
        let findings = Self.classify([
            Fixture.flow(1, sni: "Tracker.example.org", opening: .tlsHandshake),
            Fixture.flow(2, sni: "api.example.com", opening: .tlsHandshake),
            Fixture.flow(3, sni: "tracker.example.org.", opening: .tlsHandshake),
        ]).findings(of: .host)
        #expect(findings.map(\.evidence) == [.hostNotInAllowlist(host: "tracker.example.org")])
        #expect(findings.map(\.flowIDs) == [[1, 3]])
    }

    @Test("Statements that differ in what they cite stay apart")
    func differentStatementsStayApart() {
        let findings = Self.classify([
            Fixture.flow(1, sni: "api.example.com", server: Fixture.serverHello(.tls10)),
            Fixture.flow(2, sni: "api.example.com", server: Fixture.serverHello(.tls11)),
            Fixture.flow(3, sni: "api.example.com", server: Fixture.serverHello(.tls10, retry: true)),
            Fixture.flow(4, sni: "api.example.com", server: Fixture.serverHello(.tls10)),
        ]).findings
        #expect(findings.map(\.evidence) == [
            .weakTLSVersion(TLSVersionObservation(version: .tls10, basis: .serverHello(helloRetry: nil))),
            .weakTLSVersion(TLSVersionObservation(version: .tls11, basis: .serverHello(helloRetry: nil))),
            .weakTLSVersion(TLSVersionObservation(version: .tls10, basis: .serverHello(helloRetry: .retryOnly))),
        ])
        #expect(findings.map(\.flowIDs) == [[1, 4], [2], [3]])
    }

    @Test("Findings follow the order things happened, whatever order the flows came in")
    func orderOfHappening() {
        let flows = [
            Fixture.flow(9, at: 30, sni: "c.example.org"),
            Fixture.flow(4, at: 10, sni: "b.example.org"),
            Fixture.flow(7, at: 20, sni: "a.example.org"),
            Fixture.flow(3, at: 10, sni: "d.example.org"),
        ]
        let findings = Self.classify(flows).findings(of: .host)
        #expect(findings.map(\.evidence.host) == ["d.example.org", "b.example.org", "a.example.org", "c.example.org"])
        #expect(Self.classify(flows.reversed()) == Self.classify(flows))
    }

    @Test("A flow proving several things gives them as cleartext, TLS version, destination, pinning, consent")
    func perFlowOrder() {
        let flow = Fixture.flow(
            1, at: 5, status: .inspected, sni: "tracker.example.org", server: Fixture.serverHello(.tls11), opening: .httpRequest)
        let findings = Self.classify([flow], markers: [Fixture.consent(10)]).findings
        #expect(findings.map(\.kind) == [
            .cleartextTraffic, .weakTLSVersion, .hostNotInAllowlist, .pinningAbsent, .activityBeforeConsent,
        ])
        #expect(findings.allSatisfy { $0.flowIDs == [1] })
    }

    @Test("A finding's place is its first flow: a later flow joins it, an earlier new statement goes ahead")
    func findingsOrderedByFirstFlow() {
        let findings = Self.classify([
            Fixture.flow(1, port: 80, opening: .httpRequest),
            Fixture.flow(2, sni: "tracker.example.org"),
            Fixture.flow(3, port: 80, opening: .httpRequest),
        ]).findings
        #expect(findings.map(\.kind) == [.cleartextTraffic, .unnamedFlow, .hostNotInAllowlist])
        #expect(findings.map(\.flowIDs) == [[1, 3], [1, 3], [2]])
    }

    @Test("One host may be both pinningAbsent and pinningObserved, once another host accepted the CA")
    func oneHostBothPinningKinds() {
        let findings = Self.classify([
            Fixture.flow(1, status: .notInspectable, sni: "api.example.com"),
            Fixture.flow(2, status: .inspected, sni: "api.example.com"),
            Fixture.flow(3, status: .inspected, sni: "cdn.example.com"),
        ]).findings(of: .pinning)
        #expect(findings.map(\.evidence) == [
            .pinningObserved(host: "api.example.com"), .pinningAbsent(host: "api.example.com"), .pinningAbsent(host: "cdn.example.com"),
        ])
    }

    @Test("Unassessed flows are grouped by reason, reasons in the order they first came up")
    func unassessedGroupedByReason() {
        let coverage = Self.classify([
            Fixture.flow(1, proto: .udp, port: 5353),
            Fixture.flow(2, port: 443),
            Fixture.flow(3, proto: .udp, port: 443),
            Fixture.flow(4, port: 22, opening: .unrecognised),
            Fixture.flow(5, port: 443),
        ]).encryption
        #expect(coverage.unassessed.map(\.reason) == [.datagramsNotRead, .openingNotRead, .unrecognisedOpening])
        #expect(coverage.unassessed.map(\.flowIDs) == [[1, 3], [2, 5], [4]])
        #expect(coverage.satisfiedFlowIDs.isEmpty && coverage.notApplicableFlowIDs.isEmpty)
    }

    @Test("Pinning never has satisfied flows; its good outcome is a finding")
    func pinningHasNoSatisfied() {
        let result = Self.classify([Fixture.flow(1, status: .notInspectable, sni: "api.example.com")])
        #expect(result.pinning.satisfiedFlowIDs.isEmpty)
        #expect(result.summary(of: .pinning).findingFlows == 1)
    }

    @Test("Consent reads only this session's markers; a baseline is not applicable")
    func consentMarkersOfThisSessionOnly() {
        let flows = [Fixture.flow(1, at: 5), Fixture.flow(2, at: 15)]
        let ofAnother = Self.classify(flows, markers: [Fixture.consent(10, session: 99)])
        #expect(ofAnother.consent.unassessed.map(\.reason) == [.noConsentMarker])
        let own = Self.classify(flows, markers: [Fixture.consent(10)])
        #expect(own.findings(of: .consent).map(\.flowIDs) == [[1]])
        #expect(own.consent.satisfiedFlowIDs == [2])
        let baseline = Self.classify(flows, session: Fixture.session(release: nil), markers: [Fixture.consent(10)])
        #expect(baseline.consent.notApplicableFlowIDs == [1, 2])
    }

    @Test("DNS with the session's gateway resolver is no finding; DNS with another resolver is two")
    func theGatewaysResolverIsLabInfrastructure() {
        let resolver = Fixture.remoteAddress(1)
        let result = Self.classify(
            [Fixture.flow(1, proto: .udp, port: 53), Fixture.flow(2, proto: .udp, port: 53)],
            session: Fixture.session(gatewayResolvers: [resolver]))
        #expect(result.findings.map(\.evidence) == [.cleartextTraffic(.dns), .unnamedFlow(.dnsToOtherResolver)])
        #expect(result.findings.map(\.flowIDs) == [[2], [2]])
        #expect(result.encryption.notApplicableFlowIDs == [1])
        #expect(result.host.unassessed.map(\.reason) == [.gatewayResolver])
        #expect(result.host.unassessed.map(\.flowIDs) == [[1]])
    }

    @Test("The summary of a check counts its four places")
    func summaryCounts() {
        let result = Self.classify([
            Fixture.flow(1, port: 80, opening: .httpRequest),
            Fixture.flow(2, opening: .tlsHandshake),
            Fixture.flow(3, proto: .udp, port: 5353),
            Fixture.flow(4, proto: .icmp, port: 0),
        ])
        #expect(result.summary(of: .encryption) == CheckCoverageSummary(
            check: .encryption, findingFlows: 1, satisfiedFlows: 1, unassessedFlows: 1, notApplicableFlows: 1))
    }
}
