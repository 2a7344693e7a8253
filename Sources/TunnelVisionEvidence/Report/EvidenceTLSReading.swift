import TunnelVisionAudit
import TunnelVisionModel

/// One host and one negotiated version read for it, with how many connections show it: a row
/// of the report's TLS readings, which flows.json holds flow by flow.
public struct EvidenceTLSReading: Sendable, Hashable {
    public let host: String?
    public let origin: FlowName.Origin?
    public let observation: TLSVersionObservation
    public let connections: Int

    /// By host (connections without a name last), then version and where it was read, so that
    /// a host's readings stand together.
    static func readings(of flows: [StoredFlow]) -> [EvidenceTLSReading] {
        struct Key: Hashable {
            let host: String?
            let origin: FlowName.Origin?
            let observation: TLSVersionObservation
        }
        var order: [Key] = []
        var counts: [Key: Int] = [:]
        for flow in flows {
            guard let observation = TLSVersionObservation(of: flow) else { continue }
            let name = flow.name
            let key = Key(host: name.map { DomainPattern.normalised(host: $0.text) }, origin: name?.origin, observation: observation)
            if counts[key] == nil { order.append(key) }
            counts[key, default: 0] += 1
        }
        let sorted = order.sorted { left, right in
            let leftHost = left.host ?? "\u{10FFFF}", rightHost = right.host ?? "\u{10FFFF}"
            if leftHost != rightHost { return leftHost < rightHost }
            if left.observation.version != right.observation.version {
                return left.observation.version.wireValue < right.observation.version.wireValue
            }
            return left.observation.basis.name < right.observation.basis.name
        }
        return sorted.map {
            EvidenceTLSReading(host: $0.host, origin: $0.origin, observation: $0.observation, connections: counts[$0] ?? 0)
        }
    }
}
