import TunnelVisionModel

/// A DNS answer as the history keeps it: the name, one address it gave, and the row of the flow
/// that carried the answer (nil once that flow was pruned).
public struct StoredDNSAnswer: Sendable, Hashable {
    public let flowID: Int64?
    public let queryName: String
    public let address: String
}

extension HistorySnapshot {
    /// Every DNS answer, in the order written: what tvwire shows a developer beside the flows.
    public func dnsAnswers() throws -> [StoredDNSAnswer] {
        try db.statement("SELECT flow_id, query_name, address FROM dns_answers ORDER BY id").rows { row in
            StoredDNSAnswer(flowID: row.int64OrNil(0), queryName: row.text(1), address: row.text(2))
        }
    }
}
