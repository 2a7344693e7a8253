import Foundation

/// The observer's `presentation(for:)` asked on a thread of its own. The daemon answers it from
/// the history, which another writer may hold for seconds: asked on the loop, that wait would
/// stall every connection of every phone. A connection waiting for its answer waits alone.
final class RequestedLeafReads: @unchecked Sendable {
    struct Answer {
        let connection: RelayConnection
        let presentation: RequestedLeaf?
    }

    private let observer: RelayObserver
    private let wake: () -> Void
    private let condition = NSCondition()
    /// Guarded by `condition`; the connections are only carried here, never touched off the loop.
    private var asked: [RelayConnection] = []
    private var answers: [Answer] = []
    private var stopping = false
    private var started = false

    /// `wake` interrupts the loop's wait once an answer is ready.
    init(observer: RelayObserver, wake: @escaping () -> Void) {
        self.observer = observer
        self.wake = wake
    }

    /// On the loop: queue the question for this connection's leg.
    func ask(for connection: RelayConnection) {
        condition.lock()
        if !started {
            started = true
            let thread = Thread { [self] in work() }
            thread.name = "relay-presentation"
            thread.start()
        }
        asked.append(connection)
        condition.signal()
        condition.unlock()
    }

    /// On the loop: the answers that arrived since the last call, in order.
    func take() -> [Answer] {
        condition.lock()
        defer { condition.unlock() }
        let taken = answers
        answers.removeAll()
        return taken
    }

    /// The thread ends after the question it is on; answers after this are dropped.
    func stop() {
        condition.lock()
        stopping = true
        asked.removeAll()
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while asked.isEmpty, !stopping { condition.wait() }
            if stopping {
                condition.unlock()
                return
            }
            let connection = asked.removeFirst()
            condition.unlock()
            let presentation = observer.presentation(for: connection.leg)
            condition.lock()
            if !stopping { answers.append(Answer(connection: connection, presentation: presentation)) }
            condition.unlock()
            wake()
        }
    }
}
