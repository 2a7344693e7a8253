import TunnelVisionModel

/// Turns the flows of a session into what they prove. It decides no verdict, and what it could
/// not look at comes back with its reason instead of being left out.
public enum FindingsClassifier {
    public static func classify(
        flows: [StoredFlow], project: AuditProject,
        session: AuditSession, markers: [SessionMarker],
        policy: FindingsPolicy
    ) -> SessionFindings {
        let consent = ConsentInterval(markers: markers, sessionID: session.id)
        var findings = FindingsGathering()
        var encryption = CoverageBuilder<EncryptionGap>()
        var tlsVersion = CoverageBuilder<TLSVersionGap>()
        var host = CoverageBuilder<HostGap>()
        var pinning = CoverageBuilder<PinningGap>()
        var consentCoverage = CoverageBuilder<ConsentGap>()
        var validation = CoverageBuilder<CertificateValidationGap>()
        let refusals = PinningRefusalContext(flows: flows, conditions: session.inspection)

        for flow in flows.inOrderOfHappening() {
            // The order of the statements a single flow proves: cleartext, TLS version,
            // destination, pinning, consent, certificate validation.
            let statements = [
                encryption.record(EncryptionAssessment(of: flow, gatewayResolvers: session.gatewayResolvers).outcome, flowID: flow.id),
                tlsVersion.record(TLSVersionAssessment(of: flow, minimum: policy.minimumTLSVersion).outcome, flowID: flow.id),
                host.record(HostAssessment(of: flow, project: project, gatewayResolvers: session.gatewayResolvers).outcome, flowID: flow.id),
                pinning.record(PinningAssessment(of: flow, conditions: session.inspection).outcome(in: refusals), flowID: flow.id),
                consentCoverage.record(
                    ConsentAssessment(of: flow, sessionKind: session.kind, consent: consent).outcome, flowID: flow.id),
                validation.record(
                    CertificateValidationAssessment(of: flow, conditions: session.inspection).outcome, flowID: flow.id),
            ]
            for case let evidence? in statements {
                findings.add(evidence, flowID: flow.id)
            }
        }
        return SessionFindings(
            findings: findings.findings, tlsVersion: tlsVersion.coverage, encryption: encryption.coverage,
            host: host.coverage, pinning: pinning.coverage, consent: consentCoverage.coverage,
            certificateValidation: validation.coverage)
    }
}

/// Merges identical statements into one finding, in the order each was first proved.
private struct FindingsGathering {
    private var order: [FindingEvidence] = []
    private var flowIDs: [FindingEvidence: [Int64]] = [:]

    mutating func add(_ evidence: FindingEvidence, flowID: Int64) {
        if flowIDs[evidence] == nil { order.append(evidence) }
        flowIDs[evidence, default: []].append(flowID)
    }

    var findings: [Finding] {
        order.map { Finding(evidence: $0, flowIDs: flowIDs[$0] ?? []) }
    }
}

extension Array where Element == StoredFlow {
    /// By first packet, then by row id: the order things happened, whatever order they came in.
    func inOrderOfHappening() -> [StoredFlow] {
        sorted { ($0.firstSeen, $0.id) < ($1.firstSeen, $1.id) }
    }
}
