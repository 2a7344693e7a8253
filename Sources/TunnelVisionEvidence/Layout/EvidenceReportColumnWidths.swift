import Foundation

/// How a table's columns divide the width they are given.
public enum EvidenceReportColumnWidths {
    /// Every column its natural width when all fit; otherwise the columns narrower than an even
    /// share keep theirs and the wider ones divide what is left in proportion to their natural
    /// widths, so that a short column is never wrapped to make room for a long one.
    public static func shares(natural: [CGFloat], into available: CGFloat) -> [CGFloat] {
        let natural = natural.map { $0.isFinite ? max($0, 0) : 0 }
        let available = available.isFinite ? max(available, 0) : 0
        guard natural.reduce(0, +) > available else { return natural }
        var kept = Set<Int>()
        var changed = true
        while changed {
            changed = false
            let open = natural.indices.filter { !kept.contains($0) }
            guard !open.isEmpty else { break }
            let left = available - kept.reduce(0) { $0 + natural[$1] }
            let even = left / CGFloat(open.count)
            for index in open where natural[index] <= even {
                kept.insert(index)
                changed = true
            }
        }
        let left = max(available - kept.reduce(0) { $0 + natural[$1] }, 0)
        let wideTotal = natural.indices.filter { !kept.contains($0) }.reduce(0) { $0 + natural[$1] }
        return natural.indices.map { index in
            if kept.contains(index) { return natural[index] }
            return wideTotal > 0 ? left * natural[index] / wideTotal : 0
        }
    }

    /// As `shares`, then what is left over is spread in proportion to each column's share, so
    /// that the columns always span the whole width (evenly when nothing has a width).
    public static func filling(natural: [CGFloat], into available: CGFloat) -> [CGFloat] {
        let available = available.isFinite ? max(available, 0) : 0
        let shared = shares(natural: natural, into: available)
        let total = shared.reduce(0, +)
        guard !shared.isEmpty, total < available else { return shared }
        guard total > 0 else { return shared.map { _ in available / CGFloat(shared.count) } }
        return shared.map { $0 + (available - total) * $0 / total }
    }
}
