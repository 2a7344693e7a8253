import TunnelVisionModel

/// Why a flow has no name. It describes the flow only: whether DNS was encrypted is a fact of
/// the session, and an address typed as a literal is not something the flow can tell.
public enum UnnamedFlowReason: String, Sendable, Hashable, CaseIterable {
    /// No ClientHello was read, and DNS named nothing for the address.
    case noClientHelloRead
    /// A ClientHello was read and announced no name.
    case serverNameNotAnnounced
    /// A ClientHello announced no name and carried Encrypted Client Hello.
    case encryptedClientHello
    /// A DNS exchange on port 53 with an address that is not the gateway's resolver.
    case dnsToOtherResolver
}

/// Why the destination of a named flow could not be judged.
public enum HostGap: Sendable, Hashable {
    /// The project allows nothing, so nothing can be outside it.
    case allowlistEmpty
    /// The address had several DNS names, some allowed and some not; says which side the attributed one is on.
    case candidatesDisagree(attributedNameAllowed: Bool)
    /// DNS with the gateway's resolver: where the names led is judged on the connections after it.
    case gatewayResolver
    /// A record that began mid-connection: the name travelled in the opening, which came before it.
    case continuation

    /// The key findings.json writes as the reason.
    public var name: String {
        switch self {
        case .allowlistEmpty: "allowlistEmpty"
        case .candidatesDisagree: "candidatesDisagree"
        case .gatewayResolver: "gatewayResolver"
        case .continuation: "continuation"
        }
    }
}

/// What the destination check says of one flow. Every flow went somewhere: there is no
/// "not applicable", and a flow without a name is itself a finding. Besides the flow's name, the
/// check judges every host the requests read inside it named: one HTTP/2 connection may carry
/// requests for several names, and a CONNECT names its host only inside.
public enum HostAssessment: Sendable, Hashable {
    /// The allowlist covers the name (and, for a DNS name, every candidate of the address), and
    /// every host the connection's requests named.
    case allowed
    /// The allowlist does not cover the host, normalised.
    case notInAllowlist(host: String)
    /// Requests read inside the connection named hosts the allowlist does not cover: these, and
    /// the flow's name first if it is not covered either, normalised, in the order first named.
    case carriedHostsNotInAllowlist([String])
    /// The flow has no name.
    case unnamed(UnnamedFlowReason)
    /// Named, but the allowlist cannot settle it.
    case notAssessed(HostGap)

    /// `gatewayResolvers` are the session's: the lab's own resolver is not a destination of the app.
    public init(of flow: StoredFlow, project: AuditProject, gatewayResolvers: [IPAddress] = []) {
        let byName = Self(name: flow.state, project: project, gatewayResolvers: gatewayResolvers)
        let isAllowed = { (host: String) in project.allowlistEntry(matching: host) != nil }
        guard !project.allowlist.isEmpty else { self = byName; return }
        var hosts = flow.requestHosts.filter { !isAllowed($0) }
        if case .notInAllowlist(let host) = byName {
            hosts.removeAll { $0 == host }
            if !hosts.isEmpty { hosts.insert(host, at: 0) }
        }
        self = hosts.isEmpty ? byName : .carriedHostsNotInAllowlist(hosts)
    }

    /// The flow judged by its name alone.
    private init(name flow: FlowState, project: AuditProject, gatewayResolvers: [IPAddress]) {
        if let server = flow.dnsServer, gatewayResolvers.contains(server.address) {
            self = .notAssessed(.gatewayResolver)
            return
        }
        guard let name = flow.name else {
            // A continuation had no name to carry: its opening, which did, came before the record.
            self = flow.continuation != nil ? .notAssessed(.continuation) : .unnamed(Self.reasonForNoName(flow))
            return
        }
        guard !project.allowlist.isEmpty else {
            self = .notAssessed(.allowlistEmpty)
            return
        }
        let host = DomainPattern.normalised(host: name.text)
        let isAllowed = { (candidate: String) in project.allowlistEntry(matching: candidate) != nil }
        // An announced name is what the app asked for: it is never second-guessed. A DNS name is
        // only the latest of the address's names, so an allowed winner does not clear the rest.
        let attributedAllowed = isAllowed(host)
        let candidates = name.origin == .sni ? [] : name.otherCandidates
        switch (attributedAllowed, candidates.allSatisfy(isAllowed), candidates.contains(where: isAllowed)) {
        case (true, true, _): self = .allowed
        case (false, _, false): self = .notInAllowlist(host: host)
        default: self = .notAssessed(.candidatesDisagree(attributedNameAllowed: attributedAllowed))
        }
    }

    private static func reasonForNoName(_ flow: FlowState) -> UnnamedFlowReason {
        if flow.dnsServer != nil { return .dnsToOtherResolver }
        guard flow.hasClientHelloReading else { return .noClientHelloRead }
        return flow.clientTLS?.hasEncryptedClientHello == true ? .encryptedClientHello : .serverNameNotAnnounced
    }

    var outcome: CheckOutcome<HostGap> {
        switch self {
        case .allowed: .satisfied
        case .notInAllowlist(let host): .finding(.hostNotInAllowlist(host: host))
        case .carriedHostsNotInAllowlist(let hosts): .findings(hosts.map { .hostNotInAllowlist(host: $0) })
        case .unnamed(let reason): .finding(.unnamedFlow(reason))
        case .notAssessed(let gap): .unassessed(gap)
        }
    }
}
