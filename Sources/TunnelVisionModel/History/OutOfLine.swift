/// A value kept on the heap, for a reading few flows have: an absent one costs a flow one word
/// in line, where the value itself would cost its whole size in every live flow.
public final class OutOfLine<Value: Sendable>: Sendable {
    public let value: Value

    public init(_ value: Value) {
        self.value = value
    }
}

extension OutOfLine: Equatable where Value: Equatable {
    public static func == (lhs: OutOfLine, rhs: OutOfLine) -> Bool { lhs.value == rhs.value }
}

extension OutOfLine: Hashable where Value: Hashable {
    public func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

/// The readings of a flow that only flows of a rare kind have: a request naming its host in
/// cleartext, early data, the relay's record, a PROXY protocol header.
struct RareFlowReadings: Sendable, Hashable {
    var httpHost: String?
    var socksHost: String?
    var earlyData: EarlyDataReading?
    var relay: RelayVerdict?
    var proxyProtocol: ProxyProtocolAnnouncement?

    var isEmpty: Bool { self == RareFlowReadings() }
}

extension FlowState {
    /// The host the phone's first HTTP request named; only on a stream that opened with one.
    public var httpHost: String? {
        get { self[rare: \.httpHost] } set { self[rare: \.httpHost] = newValue }
    }

    /// The domain the phone's SOCKS CONNECT request named; only on a stream that opened with one.
    public var socksHost: String? {
        get { self[rare: \.socksHost] } set { self[rare: \.socksHost] = newValue }
    }

    /// What the wire showed of the early data the ClientHello offered; nil when none was offered.
    public var earlyData: EarlyDataReading? {
        get { self[rare: \.earlyData] } set { self[rare: \.earlyData] = newValue }
    }

    /// What the relay saw, when it was offered the connection.
    public var relay: RelayVerdict? {
        get { self[rare: \.relay] } set { self[rare: \.relay] = newValue }
    }

    /// The PROXY protocol header the stream opened with, before its TLS.
    public var proxyProtocol: ProxyProtocolAnnouncement? {
        get { self[rare: \.proxyProtocol] } set { self[rare: \.proxyProtocol] = newValue }
    }

    /// Kept absent while every rare reading is: equal states stay equal, whatever came and went.
    private subscript<Value>(rare reading: WritableKeyPath<RareFlowReadings, Value?>) -> Value? {
        get { rare?.value[keyPath: reading] }
        set {
            var readings = rare?.value ?? RareFlowReadings()
            readings[keyPath: reading] = newValue
            rare = readings.isEmpty ? nil : OutOfLine(readings)
        }
    }
}
