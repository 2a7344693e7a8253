import TunnelVisionAudit
import TunnelVisionModel

/// One host, what the server answered (a negotiated version, or an alert that refused the
/// connection) and what the phone offered, with how many connections show it: a row of the
/// report's TLS readings, which flows.json holds flow by flow.
public struct EvidenceTLSReading: Sendable, Hashable {
    public enum Answer: Sendable, Hashable {
        case negotiated(TLSVersionObservation)
        /// An alert came instead of a ServerHello (refused connections are readings too).
        case refused(alert: UInt8)
    }

    /// The part of a ClientHello's offer the table shows: its versions and how they were given.
    public struct Offer: Sendable, Hashable {
        public let form: ClientTLSOffer.VersionsForm
        public let versions: [TLSProtocolVersion]
        public let encryptedClientHello: Bool
        /// With 0-RTT early data offered: what the wire showed of it (flows.json's earlyData).
        public let earlyData: EarlyDataReading?

        init(_ offer: ClientTLSOffer, earlyData: EarlyDataReading?) {
            form = offer.versionsForm
            versions = offer.versions
            encryptedClientHello = offer.hasEncryptedClientHello
            self.earlyData = offer.offersEarlyData ? earlyData ?? EarlyDataReading() : nil
        }
    }

    public let host: String?
    public let origin: FlowName.Origin?
    public let answer: Answer
    /// Nil when the phone's ClientHello was not read.
    public let offer: Offer?
    public let connections: Int

    /// By host (connections without a name last), then answer (versions in order, then
    /// refusals by alert) and where it was read, then offer, so that a host's readings stand together.
    static func readings(of flows: [StoredFlow]) -> [EvidenceTLSReading] {
        struct Key: Hashable {
            let host: String?
            let origin: FlowName.Origin?
            let answer: Answer
            let offer: Offer?
        }
        var order: [Key] = []
        var counts: [Key: Int] = [:]
        for flow in flows {
            let answer: Answer
            if let observation = TLSVersionObservation(of: flow) {
                answer = .negotiated(observation)
            } else if case .refused(let alert) = flow.serverTLS {
                answer = .refused(alert: alert)
            } else {
                continue
            }
            let name = flow.name
            let key = Key(
                host: name.map { DomainPattern.normalised(host: $0.text) }, origin: name?.origin, answer: answer,
                offer: flow.clientTLS.map { Offer($0, earlyData: flow.earlyData) })
            if counts[key] == nil { order.append(key) }
            counts[key, default: 0] += 1
        }
        let sorted = order.sorted { left, right in
            let leftHost = left.host ?? "\u{10FFFF}", rightHost = right.host ?? "\u{10FFFF}"
            if leftHost != rightHost { return leftHost < rightHost }
            if left.answer != right.answer { return left.answer < right.answer }
            return EvidenceTLSReading.Offer.precedes(left.offer, right.offer)
        }
        return sorted.map {
            EvidenceTLSReading(host: $0.host, origin: $0.origin, answer: $0.answer, offer: $0.offer, connections: counts[$0] ?? 0)
        }
    }
}

extension EvidenceTLSReading.Answer {
    /// Negotiated versions in wire order, then by where they were read; then refusals by alert.
    fileprivate static func < (left: Self, right: Self) -> Bool {
        switch (left, right) {
        case (.negotiated(let a), .negotiated(let b)):
            if a.version != b.version { return a.version.wireValue < b.version.wireValue }
            if a.basis.name != b.basis.name { return a.basis.name < b.basis.name }
            return (a.helloRetry?.rawValue ?? 0) < (b.helloRetry?.rawValue ?? 0)
        case (.negotiated, .refused): return true
        case (.refused, .negotiated): return false
        case (.refused(let a), .refused(let b)): return a < b
        }
    }
}

extension EvidenceTLSReading.Offer {
    /// Listed offers before ceilings, then by their versions; an unread offer comes last.
    fileprivate static func precedes(_ left: Self?, _ right: Self?) -> Bool {
        guard let left else { return false }
        guard let right else { return true }
        if left.form != right.form { return left.form == .listed }
        if left.encryptedClientHello != right.encryptedClientHello { return !left.encryptedClientHello }
        if (left.earlyData == nil) != (right.earlyData == nil) { return left.earlyData == nil }
        if let a = left.earlyData, let b = right.earlyData, a != b { return a.storedValue < b.storedValue }
        return left.versions.map(\.wireValue).lexicographicallyPrecedes(right.versions.map(\.wireValue))
    }
}
