import TunnelVisionModel

/// The thresholds the classifier applies; it has no other.
public struct FindingsPolicy: Sendable, Hashable {
    /// A negotiated version below this one is weak.
    public let minimumTLSVersion: TLSProtocolVersion

    /// Nil unless the minimum is one of the published versions: a draft has no place in the order.
    public init?(minimumTLSVersion: TLSProtocolVersion) {
        guard minimumTLSVersion.isPublished else { return nil }
        self.minimumTLSVersion = minimumTLSVersion
    }
}

/// What the flows of one session prove, and how far each check got.
public struct SessionFindings: Sendable, Hashable {
    /// One per statement, in the order of the first flow that proved it.
    public let findings: [Finding]
    public let tlsVersion: CheckCoverage<TLSVersionGap>
    public let encryption: CheckCoverage<EncryptionGap>
    public let host: CheckCoverage<HostGap>
    /// Satisfied is always empty: the good outcome of pinning is itself a finding.
    public let pinning: CheckCoverage<PinningGap>
    public let consent: CheckCoverage<ConsentGap>
    public let certificateValidation: CheckCoverage<CertificateValidationGap>
    /// The flows the consent check judged on their read requests (`ConsentBasis.requestsRead`), in
    /// the order they happened.
    public let consentJudgedOnRequests: [Int64]
    /// The flows it judged on their first packet (`ConsentBasis.connectionStart`), in the order they happened.
    public let consentJudgedOnConnectionStart: [Int64]
    /// The requests read before the first consent marker in the flows behind a
    /// `requestsBeforeConsent` finding, in the order they were sent.
    public let requestsBeforeConsent: [RequestBeforeConsent]

    /// The basis the consent check judged a flow on.
    public func consentBasis(ofFlow id: Int64) -> ConsentBasis {
        consentJudgedOnRequests.contains(id) ? .requestsRead : .connectionStart
    }

    /// The findings one check produced, in order.
    public func findings(of check: FindingsCheck) -> [Finding] {
        findings.filter { $0.kind.check == check }
    }

    /// The counts of one check; they add up to the flows classified.
    public func summary(of check: FindingsCheck) -> CheckCoverageSummary {
        // A connection that carried requests for several hosts proves several statements of one
        // check: it is counted once, so that the counts still add up to the flows classified.
        let findingFlows = Set(findings(of: check).flatMap(\.flowIDs)).count
        func summary<Gap>(_ coverage: CheckCoverage<Gap>) -> CheckCoverageSummary {
            CheckCoverageSummary(
                check: check, findingFlows: findingFlows, satisfiedFlows: coverage.satisfiedFlowIDs.count,
                unassessedFlows: coverage.unassessedFlowCount, notApplicableFlows: coverage.notApplicableFlowIDs.count)
        }
        switch check {
        case .encryption: return summary(encryption)
        case .tlsVersion: return summary(tlsVersion)
        case .host: return summary(host)
        case .pinning: return summary(pinning)
        case .consent: return summary(consent)
        case .certificateValidation: return summary(certificateValidation)
        }
    }
}
