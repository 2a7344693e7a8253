import TunnelVisionAudit

/// F1, F2… in the order of the session's findings, which is the order things happened. An
/// identifier means something only inside one bundle: it is how flows and requirements point
/// at a finding.
public struct EvidenceFindingIdentifiers: Sendable, Hashable {
    private let byFinding: [Finding: String]
    private let byFlow: [Int64: [String]]

    public init(_ findings: [Finding]) {
        var byFinding: [Finding: String] = [:]
        var byFlow: [Int64: [String]] = [:]
        for (index, finding) in findings.enumerated() {
            let id = Finding.identifier(at: index)
            byFinding[finding] = id
            for flow in finding.flowIDs where byFlow[flow]?.last != id {
                byFlow[flow, default: []].append(id)
            }
        }
        self.byFinding = byFinding
        self.byFlow = byFlow
    }

    /// The identifier of a finding of this session.
    public func id(of finding: Finding) -> String {
        byFinding[finding] ?? "F?"
    }

    /// The findings a flow proves, in finding order; empty when it proves none.
    public func ids(ofFlow flowID: Int64) -> [String] {
        byFlow[flowID] ?? []
    }
}
