import TunnelVisionModel

/// Two audit sessions of one project compared: the domains the later one contacted that the
/// earlier did not, those it stopped contacting, and how the TLS of the others moved. It
/// decides no verdict.
public struct ReleaseDiff: Sendable, Hashable {
    /// Why two sessions are not compared; the first that fails, in this order.
    public enum Refusal: Error, Sendable, Hashable {
        /// Both arguments are the same session.
        case sameSession
        /// The sessions belong to different projects.
        case differentProjects
        /// The sessions are not of the project given.
        case notTheSessionsProject
        /// A baseline has no release to compare.
        case baseline(sessionID: Int64)
        /// A session still recording is not finished evidence.
        case stillOpen(sessionID: Int64)
    }

    public let earlier: Recording
    public let later: Recording
    /// The later session's domains first, then the earlier's, each by first appearance.
    public let domains: [DomainComparison]
    public let earlierUnnamedFlowIDs: [Int64]
    public let laterUnnamedFlowIDs: [Int64]

    /// Which session is later is decided by when each started (a tie by the larger id),
    /// never by the argument order or the release text. Needs every flow of both sessions.
    public init(
        between first: Recording, flows firstFlows: [StoredFlow],
        and second: Recording, flows secondFlows: [StoredFlow],
        project: AuditProject
    ) throws(Refusal) {
        if let refusal = Self.refusal(first, second, project: project) { throw refusal }
        let firstIsLater = (first.startedAt, first.id) > (second.startedAt, second.id)
        let (earlier, later) = firstIsLater ? (second, first) : (first, second)
        let earlierDomains = SessionDomains(flows: firstIsLater ? secondFlows : firstFlows)
        let laterDomains = SessionDomains(flows: firstIsLater ? firstFlows : secondFlows)
        let earlierValidation = SessionValidationResults(flows: firstIsLater ? secondFlows : firstFlows, session: earlier)
        let laterValidation = SessionValidationResults(flows: firstIsLater ? firstFlows : secondFlows, session: later)
        let earlierPinning = SessionPinningResults(flows: firstIsLater ? secondFlows : firstFlows, session: earlier)
        let laterPinning = SessionPinningResults(flows: firstIsLater ? firstFlows : secondFlows, session: later)

        var hosts = laterDomains.domains.map(\.host)
        let laterHosts = Set(hosts)
        hosts += earlierDomains.domains.map(\.host).filter { !laterHosts.contains($0) }

        self.earlier = earlier
        self.later = later
        self.domains = hosts.map { host in
            var comparison = DomainComparison(
                host: host, standing: AllowlistStanding(host: host, project: project),
                earlier: earlierDomains.domain(host), later: laterDomains.domain(host),
                validation: ValidationComparison(earlier: earlierValidation.byHost[host], later: laterValidation.byHost[host]))
            comparison.pinning = PinningComparison(earlier: earlierPinning.byHost[host], later: laterPinning.byHost[host])
            return comparison
        }
        self.earlierUnnamedFlowIDs = earlierDomains.unnamedFlowIDs
        self.laterUnnamedFlowIDs = laterDomains.unnamedFlowIDs
    }

    private static func refusal(_ first: Recording, _ second: Recording, project: AuditProject) -> Refusal? {
        if first.id == second.id { return .sameSession }
        if first.projectID != second.projectID { return .differentProjects }
        if first.projectID != project.id { return .notTheSessionsProject }
        if let baseline = [first, second].first(where: { $0.kind.release == nil }) { return .baseline(sessionID: baseline.id) }
        if let open = [first, second].first(where: \.isOpen) { return .stillOpen(sessionID: open.id) }
        return nil
    }

    public var newDomains: [DomainComparison] { domains.filter { $0.status == .new } }
    public var goneDomains: [DomainComparison] { domains.filter { $0.status == .gone } }
    public var domainsInBoth: [DomainComparison] {
        domains.filter { if case .inBoth = $0.status { true } else { false } }
    }
    public var undeterminedDomains: [DomainComparison] {
        domains.filter { if case .undetermined = $0.status { true } else { false } }
    }
    /// New and unlisted: the headline. None while the allowlist is empty.
    public var unexpectedNewDomains: [DomainComparison] { newDomains.filter { $0.standing == .unlisted } }
    public var domainsWithTLSChange: [DomainComparison] { domains.filter(\.hasTLSChange) }
    /// Hosts whose connections did otherwise with the same defective certificate in the two recordings.
    public var domainsWithValidationChange: [DomainComparison] { domains.filter(\.hasValidationChange) }
    /// Hosts of which the pinning check stated something else in the two recordings.
    public var domainsWithPinningChange: [DomainComparison] { domains.filter(\.hasPinningChange) }
}
