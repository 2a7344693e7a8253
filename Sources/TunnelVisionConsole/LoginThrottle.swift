import Foundation

/// How many wrong passwords a client may send: `freeFailures` without delay, then each further
/// try must wait a delay that doubles with every failure (from `firstDelay`, at most
/// `longestDelay`). A success forgets the client; so does an hour without trying. The table is
/// bounded: when full, the client that tried longest ago is forgotten first.
public struct LoginThrottle: Sendable {
    public enum Decision: Sendable, Equatable {
        case allowed
        /// Refused without checking the password: try again after this many seconds.
        case wait(seconds: Int)
    }

    struct Record: Sendable, Equatable {
        var failures: Int
        var last: Date
    }

    public static let freeFailures = 10
    public static let firstDelay: TimeInterval = 2
    public static let longestDelay: TimeInterval = 15 * 60
    public static let forgetAfter: TimeInterval = 3600
    public static let capacity = 4096
    private var records: [String: Record] = [:]

    public init() {}

    /// Whether the client may try a password now.
    public func decision(for client: String, at now: Date) -> Decision {
        guard let record = records[client], let delay = Self.delay(afterFailures: record.failures) else { return .allowed }
        let remaining = record.last.addingTimeInterval(delay).timeIntervalSince(now)
        return remaining > 0 ? .wait(seconds: Int(remaining.rounded(.up))) : .allowed
    }

    /// Counts a wrong password; answers the delay the next try waits, if any.
    @discardableResult
    public mutating func failed(_ client: String, at now: Date) -> TimeInterval? {
        if records[client] == nil, records.count >= Self.capacity {
            records = records.filter { now.timeIntervalSince($0.value.last) <= Self.forgetAfter }
            if records.count >= Self.capacity, let oldest = records.min(by: { $0.value.last < $1.value.last }) {
                records[oldest.key] = nil
            }
        }
        var record = records[client] ?? Record(failures: 0, last: now)
        if now.timeIntervalSince(record.last) > Self.forgetAfter { record.failures = 0 }
        record.failures += 1
        record.last = now
        records[client] = record
        return Self.delay(afterFailures: record.failures)
    }

    public mutating func succeeded(_ client: String) { records[client] = nil }

    public func failures(of client: String) -> Int { records[client]?.failures ?? 0 }

    /// Nothing below `freeFailures`; then 2 s, 4 s, 8 s … up to 15 min.
    public static func delay(afterFailures failures: Int) -> TimeInterval? {
        guard failures >= freeFailures else { return nil }
        let doublings = min(failures - freeFailures, 20)
        return min(firstDelay * pow(2, Double(doublings)), longestDelay)
    }
}
