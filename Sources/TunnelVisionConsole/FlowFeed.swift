import Foundation
import TunnelVisionControl
import TunnelVisionModel
import TunnelVisionStore

/// The live flow lists of the open recordings, pushed to every page that follows one. One
/// thread reads the history's change marker for each followed recording every `interval` —
/// one read per recording however many pages follow it, and only the flows changed since the
/// last read — and hands each page the rows as a Server-Sent Event.
public final class FlowFeed: @unchecked Sendable {
    public static let interval: TimeInterval = 0.25
    /// A page that hears nothing for this long gets a comment line, so that proxies and the
    /// server's idle limit keep the stream.
    public static let keepAlive: TimeInterval = 10
    /// The newest rows a page starts with.
    public static let initialRows = 200

    let library: ControlLibrary
    private let lock = NSLock()
    private var watches: [Int64: Watch] = [:]
    private var started = false

    struct Watch {
        var marker: FlowChangeMarker
        /// The markers the shown rows' findings were judged with.
        var markers: [SessionMarker]
        var followers: [ObjectIdentifier: Follower]
    }

    public init(library: ControlLibrary) {
        self.library = library
    }

    /// A new follower of a recording, its first event (every shown row) already queued.
    public func follow(sessionID: Int64) throws(ControlError) -> Follower {
        lock.lock()
        defer { lock.unlock() }
        startIfNeeded()
        let opening = try LiveFlows.open(sessionID: sessionID, limit: Self.initialRows, library: library)
        let follower = Follower()
        follower.push(FeedEvent.rows(opening.rows, headline: opening.headline, truncation: opening.truncation, reset: true))
        guard opening.isOpen else {
            follower.push(FeedEvent.ended())
            follower.close()
            return follower
        }
        // A read made now is at least as new as the watch's: the next changes may repeat rows
        // this one already has, and the page replaces a row by its id.
        var watch = watches[sessionID] ?? Watch(marker: opening.marker, markers: opening.markers, followers: [:])
        watch.followers[ObjectIdentifier(follower)] = follower
        watches[sessionID] = watch
        return follower
    }

    public func leave(_ follower: Follower) {
        lock.lock()
        defer { lock.unlock() }
        for (id, var watch) in watches where watch.followers[ObjectIdentifier(follower)] != nil {
            watch.followers[ObjectIdentifier(follower)] = nil
            watches[id] = watch.followers.isEmpty ? nil : watch
        }
        follower.close()
    }

    /// How many pages follow recordings now.
    public var followerCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return watches.values.reduce(0) { $0 + $1.followers.count }
    }

    private func startIfNeeded() {
        guard !started else { return }
        started = true
        let thread = Thread { [weak self] in
            while let self {
                self.poll()
                Thread.sleep(forTimeInterval: Self.interval)
            }
        }
        thread.name = "flow feed"
        thread.start()
    }

    /// One read per followed recording; what changed goes to each of its followers.
    func poll() {
        lock.lock()
        defer { lock.unlock() }
        for (sessionID, var watch) in watches {
            do throws(ControlError) {
                let change = try LiveFlows.changes(sessionID: sessionID, after: watch.marker, library: library)
                watch.marker = change.marker
                if change.isOpen, change.markers != watch.markers {
                    // A marker (consent given) changes the findings of rows already shown:
                    // every page starts again from the newest rows, judged anew.
                    let opening = try LiveFlows.open(sessionID: sessionID, limit: Self.initialRows, library: library)
                    watch.markers = opening.markers
                    let event = FeedEvent.rows(opening.rows, headline: opening.headline, truncation: opening.truncation, reset: true)
                    watch.followers.values.forEach { $0.push(event) }
                } else if !change.rows.isEmpty {
                    let event = FeedEvent.rows(change.rows, headline: change.headline, truncation: nil, reset: false)
                    watch.followers.values.forEach { $0.push(event) }
                }
                if !change.isOpen {
                    watch.followers.values.forEach { $0.push(FeedEvent.ended()); $0.close() }
                    watches[sessionID] = nil
                } else {
                    watches[sessionID] = watch
                }
            } catch {
                // A busy history is asked again at the next tick; a deleted session ends its pages.
                if case .refusal(.audit(.sessionNotFound)) = error {
                    watch.followers.values.forEach { $0.push(FeedEvent.ended()); $0.close() }
                    watches[sessionID] = nil
                }
            }
        }
    }
}

/// One page's queue of events; its stream takes them one by one.
public final class Follower: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [String] = []
    private var closed = false
    /// A page that stopped reading: its events are dropped beyond this, and it is told to reload.
    static let backlog = 256

    func push(_ event: String) {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return }
        if queue.count >= Self.backlog {
            queue = [FeedEvent.reload()]
            closed = true
        } else {
            queue.append(event)
        }
        condition.signal()
    }

    func close() {
        condition.lock()
        closed = true
        condition.signal()
        condition.unlock()
    }

    /// The next event, a keep-alive comment after `FlowFeed.keepAlive` of silence, or nil when
    /// the stream is over.
    public func next() -> String? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(FlowFeed.keepAlive)
        while queue.isEmpty, !closed {
            if !condition.wait(until: deadline) { return ": still following\n\n" }
        }
        return queue.isEmpty ? nil : queue.removeFirst()
    }
}

/// The events a live page understands, as Server-Sent Events with one JSON line each.
enum FeedEvent {
    struct RowsData: Encodable {
        let headline: String
        let truncation: String?
        let reset: Bool
        let rows: [Row]
    }

    struct Row: Encodable {
        let id: Int64
        let cells: [String]
    }

    static func rows(_ rows: [LiveFlows.Row], headline: String, truncation: String?, reset: Bool) -> String {
        let data = RowsData(headline: headline, truncation: truncation, reset: reset, rows: rows.map { Row(id: $0.id, cells: $0.cells) })
        return event("rows", data)
    }

    static func ended() -> String { event("ended", ["text": Wording.consoleLiveEnded]) }
    static func reload() -> String { event("reload", ["text": Wording.consoleLiveBehind]) }

    private static func event<Value: Encodable>(_ name: String, _ value: Value) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // JSON escapes line breaks inside strings, so the data is one line, as an event needs.
        let line = (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "event: \(name)\ndata: \(line)\n\n"
    }
}
