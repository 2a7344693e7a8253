import Foundation
import TunnelVisionModel

/// What the consent check judged a flow by.
public enum ConsentBasis: String, Sendable, Hashable, CaseIterable {
    /// The requests read inside the connection: the first one's instant, and those sent before
    /// the marker. An idle connection opened early is not activity until it carries a request.
    case requestsRead
    /// The connection's first packet: no request was read in it.
    case connectionStart

    public init(of flow: StoredFlow) {
        self = flow.requests.isEmpty ? .connectionStart : .requestsRead
    }
}

/// One request read inside a connection and sent before the first consent marker: a fact a
/// `requestsBeforeConsent` finding rests on.
public struct RequestBeforeConsent: Sendable, Hashable {
    public let flowID: Int64
    public let request: ReadRequest

    public init(flowID: Int64, request: ReadRequest) {
        self.flowID = flowID
        self.request = request
    }

    /// The host the request named, as its finding cites it.
    public var host: String? { request.host }
}

extension ReadRequest {
    /// The host of the authority the request named, normalised, without its port or the brackets
    /// of an IPv6 literal; nil when it named none.
    public var host: String? {
        guard var text = authority.map({ DomainPattern.normalised(host: $0) }), !text.isEmpty else { return nil }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return text }
            text = String(text[text.index(after: text.startIndex)..<close])
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            // One colon is a port; several are an IPv6 literal written without brackets.
            text = String(text[..<colon])
        }
        text = DomainPattern.normalised(host: text)
        return text.isEmpty ? nil : text
    }
}

extension StoredFlow {
    /// The instant of the first request read in the connection; nil when none was read.
    var firstRequestInstant: Instant? { requests.lazy.map(\.instant).min() }

    /// The hosts the read requests named, in the order each was first named.
    var requestHosts: [String] { requests.compactMap(\.host).distinctInOrder() }

    /// The read requests sent before `instant`, in the order they were sent.
    func requests(before instant: Instant) -> [ReadRequest] {
        requests.filter { $0.instant < instant }.sorted { $0.instant < $1.instant }
    }
}

extension SessionFindings {
    /// The requests a `requestsBeforeConsent` finding rests on: those of its flows that named its
    /// host, in the order they were sent. Empty for any other finding.
    public func requests(behind finding: Finding) -> [RequestBeforeConsent] {
        guard case .requestsBeforeConsent(let host) = finding.evidence else { return [] }
        let flows = Set(finding.flowIDs)
        return requestsBeforeConsent.filter { flows.contains($0.flowID) && $0.host == host }
    }
}

extension Sequence where Element: Hashable {
    func distinctInOrder() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
