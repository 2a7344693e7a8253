import TunnelVisionModel

/// A recording's flows handed over one at a time, in the order they happened (by first packet,
/// then row id), as often as a check walks them. A history streams them from its rows, so what a
/// classification or a diff holds grows with what it states (flow ids per finding, per domain),
/// not with the flows themselves; a test or an export that has them in an array walks the array.
public struct FlowWalk {
    private let walk: ((StoredFlow) -> Void) -> Void

    /// `walk` hands every flow to its argument, in the order they happened.
    public init(_ walk: @escaping ((StoredFlow) -> Void) -> Void) {
        self.walk = walk
    }

    /// The flows in the order given: the caller has put them in the order they happened.
    init(inOrder flows: [StoredFlow]) {
        walk = { body in flows.forEach(body) }
    }

    func forEach(_ body: (StoredFlow) -> Void) {
        walk(body)
    }
}
