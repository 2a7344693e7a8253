import Foundation
import TunnelVisionModel

/// One line per flow, as people read a recording: when, what, to whom, how protected, how much.
enum FlowListing {
    static let columns: [TextTable.Column] = [
        .init("ID", .right), .init("FIRST SEEN"), .init("PROTO"), .init("PEERS"), .init("NAME"),
        .init("TLS"), .init("VERSION"), .init("OUT", .right), .init("IN", .right),
    ]

    /// `withRequests`: each flow's row is followed by one row per request the relay read inside
    /// it (when, version, method and host, status, body bytes), and a row counting those not kept.
    static func table(_ flows: [StoredFlow], zone: TimeZone, withRequests: Bool = false) -> TextTable {
        var table = TextTable(columns)
        for flow in flows {
            table.append(cells(of: flow, zone: zone))
            guard withRequests else { continue }
            flow.requests.forEach { table.append(cells(of: $0, zone: zone)) }
            if flow.requestsNotKept > 0 { table.append(["", "", "", Wording.requestsNotKept(flow.requestsNotKept), "", "", "", "", ""]) }
        }
        return table
    }

    /// A request under its flow: the method and host stand where the flow has its peers, its
    /// status where the flow has its TLS, its body where the flow has the bytes it sent.
    static func cells(of request: ReadRequest, zone: TimeZone) -> [String] {
        let target = (request.authority ?? AuditTables.none) + (request.path ?? "")
        return [
            "", Formatting.time(request.instant, in: zone), request.version.rawValue, "↳ \(request.method) \(target)", "",
            request.responseStatus.map(String.init) ?? AuditTables.none, "", Formatting.bytes(UInt64(clamping: request.bodyBytes)), "",
        ]
    }

    static func cells(of flow: StoredFlow, zone: TimeZone) -> [String] {
        [
            String(flow.id), Formatting.time(flow.firstSeen, in: zone), flow.key.proto.name,
            "\(flow.key.endpointA) ⇄ \(flow.key.endpointB)", name(of: flow), flow.tlsStatus.name,
            version(of: flow), Formatting.bytes(flow.bytesOut), Formatting.bytes(flow.bytesIn),
        ]
    }

    /// A line that stands alone, for output that is appended to rather than redrawn.
    static func line(of flow: StoredFlow, zone: TimeZone) -> String {
        cells(of: flow, zone: zone).joined(separator: "  ")
    }

    /// The name the flow is judged by; a name from DNS says so, since it is inferred.
    static func name(of flow: StoredFlow) -> String {
        guard let name = flow.name else { return AuditTables.none }
        switch name.origin {
        case .sni: return name.text
        case .httpHost: return "\(name.text) (http)"
        case .socksRequest: return "\(name.text) (socks)"
        case .dns: return name.otherCandidates.isEmpty ? "\(name.text) (dns)" : "\(name.text) (dns, +\(name.otherCandidates.count))"
        }
    }

    static func version(of flow: StoredFlow) -> String {
        if let negotiation = flow.serverTLS?.negotiation {
            let text = negotiation.version.displayText
            return negotiation.source == .upstreamConnection ? text + " (upstream)" : text
        }
        if case .refused(let alert) = flow.serverTLS { return "alert \(alert)" }
        if let quic = flow.quic { return quic.version.name ?? quic.version.hex }
        return AuditTables.none
    }
}
