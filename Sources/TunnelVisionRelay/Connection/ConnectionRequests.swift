import Foundation
import TunnelVisionModel
import TunnelVisionRequests

/// The requests read inside one terminated connection, from the plaintext the relay carries
/// both ways (`RelayConnection.carry`). Facts only (`ReadRequest`), paths only when the phone's
/// recording asked for them.
///
/// Bounded, so that a phone cannot make the relay hold more than a connection's share: at most
/// `keptRequests` requests and `keptTextBytes` of their method, authority and path together are
/// kept per connection; the requests past either bound are counted (`notKept`), never kept. The
/// reader's own memory is bounded by its `RequestReadingLimits`.
final class ConnectionRequests {
    static let keptRequests = 1_000
    static let keptTextBytes = 64 * 1024

    private var reader = RequestReader()
    private(set) var kept: [ReadRequest] = []
    private(set) var notKept = 0
    private var keptText = 0
    /// Why the reader stopped reading this connection, once it has (later requests were not read).
    private(set) var stopped: RequestReadingError?

    /// Before the first plaintext byte: whether the phone's recording keeps paths.
    func begin(keepingPaths: Bool) {
        reader = RequestReader(keepsPaths: keepingPaths)
    }

    /// Reads one chunk of plaintext; a chunk the reader cannot follow ends the reading (the
    /// bytes still reach the other side: the reader never decides what is carried).
    func read(_ plaintext: UnsafeRawBufferPointer, from side: RelayConnection.Side) {
        guard stopped == nil else { return }
        let instant = Instant(nanosecondsSinceEpoch: MonotonicClock.wallNanoseconds())
        do {
            keep(try reader.read(plaintext, from: side == .phone ? .fromPhone : .fromServer, at: instant))
        } catch {
            stopped = error
        }
    }

    /// The connection ended: the requests still open are kept with what was read of them, and
    /// the report carries them all.
    func finish(into report: inout RelayReport) {
        keep(reader.finish())
        report.requests = kept
        report.requestsNotKept = notKept
    }

    private func keep(_ requests: [ReadRequest]) {
        for request in requests {
            let text = request.method.utf8.count + (request.authority?.utf8.count ?? 0) + (request.path?.utf8.count ?? 0)
            guard kept.count < Self.keptRequests, keptText + text <= Self.keptTextBytes else {
                notKept += 1
                continue
            }
            kept.append(request)
            keptText += text
        }
    }
}
