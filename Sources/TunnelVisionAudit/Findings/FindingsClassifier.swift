import TunnelVisionModel

/// Turns the flows of a session into what they prove. It decides no verdict, and what it could
/// not look at comes back with its reason instead of being left out.
public enum FindingsClassifier {
    public static func classify(
        flows: [StoredFlow], project: AuditProject,
        session: Recording, markers: [SessionMarker],
        policy: FindingsPolicy
    ) -> SessionFindings {
        classify(flows: FlowWalk(inOrder: flows.inOrderOfHappening()), project: project, session: session, markers: markers, policy: policy)
    }

    /// One walk over the flows: a refusal's statement waits for the walk's end, where every
    /// acceptance that could tell it apart is known (`FindingsGathering.settled(by:)`).
    public static func classify(
        flows: FlowWalk, project: AuditProject,
        session: Recording, markers: [SessionMarker],
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
        var acceptingHosts = Set<String>()
        var judgedOn: [ConsentBasis: [Int64]] = [:]
        var requestsBeforeConsent: [RequestBeforeConsent] = []

        flows.forEach { flow in
            let outcomes = FlowOutcomes(of: flow, project: project, session: session, consent: consent, policy: policy, refusals: nil)
            if case .finding(.pinningAbsent(let accepted)) = outcomes.pinning { acceptingHosts.insert(accepted) }
            let statements = [
                encryption.record(outcomes.encryption, flowID: flow.id),
                tlsVersion.record(outcomes.tlsVersion, flowID: flow.id),
                host.record(outcomes.host, flowID: flow.id),
                pinning.record(outcomes.pinning, flowID: flow.id),
                consentCoverage.record(outcomes.consent, flowID: flow.id),
                validation.record(outcomes.validation, flowID: flow.id),
            ]
            for evidence in statements.joined() {
                findings.add(evidence, flowID: flow.id)
            }
            judgedOn[ConsentBasis(of: flow), default: []].append(flow.id)
            if let consent, !outcomes.consent.findings.isEmpty {
                requestsBeforeConsent += flow.requests(before: consent.earliest).map { RequestBeforeConsent(flowID: flow.id, request: $0) }
            }
        }
        let refusals = PinningRefusalContext(acceptingHosts: acceptingHosts, conditions: session.inspection)
        return SessionFindings(
            findings: findings.settled(by: refusals), tlsVersion: tlsVersion.coverage, encryption: encryption.coverage,
            host: host.coverage, pinning: pinning.coverage, consent: consentCoverage.coverage,
            certificateValidation: validation.coverage, consentJudgedOnRequests: judgedOn[.requestsRead] ?? [],
            consentJudgedOnConnectionStart: judgedOn[.connectionStart] ?? [],
            requestsBeforeConsent: requestsBeforeConsent.sorted { ($0.request.instant, $0.flowID) < ($1.request.instant, $1.flowID) })
    }

    /// What one flow proves, in the order `classify` gathers it: a live view reads a flow's
    /// findings while the session records, by the same rules the session's findings follow.
    /// `refusals` is what the recording's flows so far say of the CA's acceptance: a refusal is
    /// pinning only beside another host's acceptance.
    public static func findings(
        of flow: StoredFlow, project: AuditProject, session: Recording, markers: [SessionMarker], policy: FindingsPolicy,
        refusals: PinningRefusalContext
    ) -> [FindingEvidence] {
        let consent = ConsentInterval(markers: markers, sessionID: session.id)
        return FlowOutcomes(of: flow, project: project, session: session, consent: consent, policy: policy, refusals: refusals).findings
    }
}

/// Each check's outcome for one flow.
private struct FlowOutcomes {
    let encryption: CheckOutcome<EncryptionGap>
    let tlsVersion: CheckOutcome<TLSVersionGap>
    let host: CheckOutcome<HostGap>
    let pinning: CheckOutcome<PinningGap>
    let consent: CheckOutcome<ConsentGap>
    let validation: CheckOutcome<CertificateValidationGap>

    /// `refusals` nil: not known yet, a refusal is stated as pinning observed until settled.
    init(of flow: StoredFlow, project: AuditProject, session: Recording, consent interval: ConsentInterval?, policy: FindingsPolicy,
         refusals: PinningRefusalContext?) {
        // The order of the statements a single flow proves: cleartext, TLS version,
        // destination, pinning, consent, certificate validation.
        encryption = EncryptionAssessment(of: flow, gatewayResolvers: session.gatewayResolvers).outcome
        tlsVersion = TLSVersionAssessment(of: flow, minimum: policy.minimumTLSVersion).outcome
        host = HostAssessment(of: flow, project: project, gatewayResolvers: session.gatewayResolvers).outcome
        pinning = PinningAssessment(of: flow, conditions: session.inspection).outcome(in: refusals)
        consent = ConsentAssessment(of: flow, sessionKind: session.kind, consent: interval).outcome
        validation = CertificateValidationAssessment(of: flow, conditions: session.inspection).outcome
    }

    var findings: [FindingEvidence] {
        [encryption.findings, tlsVersion.findings, host.findings, pinning.findings, consent.findings, validation.findings]
            .flatMap { $0 }
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

    /// The findings, each refusal stated as pinning observed restated where no other host's
    /// acceptance tells it apart. Both statements name one host, so none merge or move.
    func settled(by refusals: PinningRefusalContext) -> [Finding] {
        order.map { evidence in
            var stated = evidence
            if case .pinningObserved(let host) = evidence, !refusals.toldApart(host) {
                stated = .refusalNotToldApart(host: host, store: refusals.store)
            }
            return Finding(evidence: stated, flowIDs: flowIDs[evidence] ?? [])
        }
    }
}

extension Array where Element == StoredFlow {
    /// By first packet, then by row id: the order things happened, whatever order they came in.
    func inOrderOfHappening() -> [StoredFlow] {
        sorted { ($0.firstSeen, $0.id) < ($1.firstSeen, $1.id) }
    }
}
