/// Where a reader of changing flows stopped: every flow inserted or updated since has a
/// higher marker. The start reads every flow.
public struct FlowChangeMarker: Sendable, Hashable {
    public let value: Int64

    public static let start = FlowChangeMarker(value: 0)

    init(value: Int64) { self.value = value }
}
