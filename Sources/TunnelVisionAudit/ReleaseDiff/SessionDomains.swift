import TunnelVisionModel

/// Who negotiated a TLS version with the server: the two are never compared with each other.
public enum TLSNegotiator: String, Sendable, Hashable, CaseIterable {
    /// The app itself: a ServerHello read on its stream, or QUIC (TLS 1.3).
    case app
    /// The tunnel's relay, on its own upstream connection while it inspected.
    case tunnel
}

/// One version read in one domain's flows, and the flows it was read in.
public struct TLSVersionSighting: Sendable, Hashable {
    public let observation: TLSVersionObservation
    /// In the order they happened; never empty.
    public let flowIDs: [Int64]

    public var negotiator: TLSNegotiator { observation.basis.negotiator }
}

/// One domain in one session.
public struct DomainObservation: Sendable, Hashable {
    /// Normalised, as a finding cites it.
    public let host: String
    /// Flows that went to it.
    public let flowIDs: [Int64]
    /// Flows that went to it or to another name of the same address: their domain is not known.
    public let candidateFlowIDs: [Int64]
    /// The versions read in `flowIDs`, with where they were read, by first appearance.
    public let tlsSightings: [TLSVersionSighting]
    /// The flows of `flowIDs` in which no version was read.
    public let flowIDsWithoutTLSReading: [Int64]

    /// Some flow is known to have gone to it.
    public var isSeen: Bool { !flowIDs.isEmpty }

    /// How the domain stands in this session.
    public var presence: DomainPresence { isSeen ? .seen : .candidateOnly }

    /// The versions one negotiator read, ascending by wire value, each once.
    public func versions(negotiatedBy negotiator: TLSNegotiator) -> [TLSProtocolVersion] {
        Set(tlsSightings.filter { $0.negotiator == negotiator }.map(\.observation.version))
            .sorted { $0.wireValue < $1.wireValue }
    }
}

/// The inventory of the domains one session contacted. It compares nothing.
public struct SessionDomains: Sendable, Hashable {
    /// In the order of their first appearance.
    public let domains: [DomainObservation]
    /// Flows without a name, in the order they happened.
    public let unnamedFlowIDs: [Int64]

    public init(flows: [StoredFlow]) {
        var reading = Reading()
        flows.inOrderOfHappening().forEach { reading.add($0) }
        self = reading.domains
    }

    private init(domains: [DomainObservation], unnamedFlowIDs: [Int64]) {
        self.domains = domains
        self.unnamedFlowIDs = unnamedFlowIDs
    }

    /// The inventory folded one flow at a time, the flows in the order they happened.
    struct Reading {
        private var inventory = DomainInventory()
        private var unnamed: [Int64] = []

        mutating func add(_ flow: StoredFlow) {
            guard let name = flow.name else {
                unnamed.append(flow.id)
                return
            }
            let host = DomainPattern.normalised(host: name.text)
            // An announced name is the domain; a DNS winner speaks only for itself when its
            // address had no other live name. Candidates equal once normalised are one.
            var candidates = [host]
            if name.origin == .dns {
                for other in name.otherCandidates.map(DomainPattern.normalised(host:)) where !candidates.contains(other) {
                    candidates.append(other)
                }
            }
            if candidates.count == 1 {
                inventory.add(flowID: flow.id, to: host, observation: TLSVersionObservation(of: flow))
            } else {
                for candidate in candidates { inventory.addCandidate(flowID: flow.id, to: candidate) }
            }
        }

        var domains: SessionDomains {
            SessionDomains(domains: inventory.observations, unnamedFlowIDs: unnamed)
        }
    }

    public func domain(_ host: String) -> DomainObservation? {
        domains.first { $0.host == host }
    }
}

/// Builds the observations in the order domains first appear.
private struct DomainInventory {
    private struct Entry {
        var flowIDs: [Int64] = []
        var candidateFlowIDs: [Int64] = []
        var sightings: [TLSVersionObservation] = []
        var sightingFlows: [TLSVersionObservation: [Int64]] = [:]
        var withoutReading: [Int64] = []
    }

    private var hosts: [String] = []
    private var entries: [String: Entry] = [:]

    mutating func add(flowID: Int64, to host: String, observation: TLSVersionObservation?) {
        update(host) { entry in
            entry.flowIDs.append(flowID)
            guard let observation else {
                entry.withoutReading.append(flowID)
                return
            }
            if entry.sightingFlows[observation] == nil { entry.sightings.append(observation) }
            entry.sightingFlows[observation, default: []].append(flowID)
        }
    }

    mutating func addCandidate(flowID: Int64, to host: String) {
        update(host) { $0.candidateFlowIDs.append(flowID) }
    }

    private mutating func update(_ host: String, _ change: (inout Entry) -> Void) {
        if entries[host] == nil { hosts.append(host) }
        change(&entries[host, default: Entry()])
    }

    var observations: [DomainObservation] {
        hosts.compactMap { host in
            guard let entry = entries[host] else { return nil }
            return DomainObservation(
                host: host, flowIDs: entry.flowIDs, candidateFlowIDs: entry.candidateFlowIDs,
                tlsSightings: entry.sightings.map { TLSVersionSighting(observation: $0, flowIDs: entry.sightingFlows[$0] ?? []) },
                flowIDsWithoutTLSReading: entry.withoutReading)
        }
    }
}
