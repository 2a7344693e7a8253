import Foundation
import Testing
@testable import TunnelVisionEvidence
import TunnelVisionModel

/// The relay's table in the report lists its rows in one order on every export.
struct EvidenceRelayEventOrderTests {
    @Test func rowsThatDifferOnlyInTheirAlertComeOutInTheAlertsOrder() {
        let alerts: [UInt8] = [80, 40, 48, 42, 70, 46, 45, 51]
        var flows: [StoredFlow] = []
        var facts: [Int64: RelayFacts] = [:]
        for (index, alert) in alerts.enumerated() {
            let id = Int64(index + 1)
            flows.append(TruthfulSentenceTests.flow(id, sni: "api.example", server: nil, offer: nil))
            facts[id] = RelayFacts(decision: .terminated, event: .phoneRefusedMirroredCertificate, alert: alert)
        }
        let rows = EvidenceRelayEvent.events(of: flows, facts: facts)
        #expect(rows.map(\.alert) == alerts.sorted().map(Optional.some))
    }
}
