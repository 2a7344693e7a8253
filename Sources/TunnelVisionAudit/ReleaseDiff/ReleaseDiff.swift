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
        self.init(first: Side(first, flows: firstFlows), second: Side(second, flows: secondFlows), project: project)
    }

    /// As above, each session's flows walked once in the order they happened, never held: the
    /// walks begin only once the two sessions are known to be comparable.
    public init(
        between first: Recording, flows firstFlows: FlowWalk,
        and second: Recording, flows secondFlows: FlowWalk,
        project: AuditProject
    ) throws(Refusal) {
        if let refusal = Self.refusal(first, second, project: project) { throw refusal }
        self.init(first: Side(first, flows: firstFlows), second: Side(second, flows: secondFlows), project: project)
    }

    private init(first: Side, second: Side, project: AuditProject) {
        let firstIsLater = (first.session.startedAt, first.session.id) > (second.session.startedAt, second.session.id)
        let (earlier, later) = firstIsLater ? (second, first) : (first, second)

        var hosts = later.domains.domains.map(\.host)
        let laterHosts = Set(hosts)
        hosts += earlier.domains.domains.map(\.host).filter { !laterHosts.contains($0) }

        self.earlier = earlier.session
        self.later = later.session
        self.domains = hosts.map { host in
            var comparison = DomainComparison(
                host: host, standing: AllowlistStanding(host: host, project: project),
                earlier: earlier.domains.domain(host), later: later.domains.domain(host),
                validation: ValidationComparison(earlier: earlier.validation.byHost[host], later: later.validation.byHost[host]))
            comparison.pinning = PinningComparison(earlier: earlier.pinning.byHost[host], later: later.pinning.byHost[host])
            return comparison
        }
        self.earlierUnnamedFlowIDs = earlier.domains.unnamedFlowIDs
        self.laterUnnamedFlowIDs = later.domains.unnamedFlowIDs
    }

    /// What the diff reads of one session.
    private struct Side {
        let session: Recording
        let domains: SessionDomains
        let validation: SessionValidationResults
        let pinning: SessionPinningResults

        init(_ session: Recording, flows: [StoredFlow]) {
            self.session = session
            domains = SessionDomains(flows: flows)
            validation = SessionValidationResults(flows: flows, session: session)
            pinning = SessionPinningResults(flows: flows, session: session)
        }

        init(_ session: Recording, flows: FlowWalk) {
            var domains = SessionDomains.Reading()
            var validation = SessionValidationResults(session: session)
            var pinning = SessionPinningResults.Reading(session: session)
            flows.forEach { flow in
                domains.add(flow)
                validation.add(flow)
                pinning.add(flow)
            }
            self.session = session
            self.domains = domains.domains
            self.validation = validation
            self.pinning = pinning.results
        }
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
