import Foundation
import TunnelVisionModel

/// One ceiling for the reassembly of every live flow together: a phone that opens thousands of
/// connections and sends each a little cannot grow the daemon's memory flow by flow up to the
/// table's capacity times the per-direction bound. At the ceiling the oldest readings are given
/// up (the flow goes on being counted and recorded; its opening stays unread), never a packet.
extension FlowEngine {
    /// Held reassembly is counted exactly only when the bytes placed since the last count could
    /// have crossed the budget; a count that finds it crossed gives up readings, oldest first,
    /// down to nine tenths of it, so the next count is at least a tenth of the budget away.
    /// The reading of the flow at `current` is being changed: it is neither counted nor given up.
    mutating func noteReassemblyGrowth(_ bytes: Int, readingAt current: Int) {
        reassemblyGrowth += bytes
        guard reassemblyCounted + reassemblyGrowth > configuration.reassemblyBudget else { return }
        var held: [(slot: Int, bytes: Int, firstSeen: Instant)] = []
        var total = 0
        for slot in 0..<table.count {
            guard slot != current, case .tcp(let reading)? = table[slot].reading else { continue }
            let bytes = reading.value.outbound.bytes.heldBytes + reading.value.inbound.bytes.heldBytes
            held.append((slot, bytes, table[slot].state.firstSeen))
            total += bytes
        }
        let target = configuration.reassemblyBudget / 10 * 9
        if total > target {
            for flow in held.sorted(by: { $0.firstSeen < $1.firstSeen }) where total > target {
                table[flow.slot].reading = nil
                table.markDirty(flow.slot)
                statistics.reassemblyGivenUp += 1
                total -= flow.bytes
            }
        }
        reassemblyCounted = total
        reassemblyGrowth = 0
    }
}
