import CEpoll
import Glibc

/// A level-triggered epoll set keyed by descriptor, and the wake-up descriptor that lets
/// another thread interrupt a wait (stop, forget refusals).
///
/// Each registration carries a generation beside its descriptor: one `epoll_wait` batch can
/// hold an event for a descriptor that an earlier event of the same batch closed and that a new
/// connection was then given (the kernel reuses the lowest free number). That event belongs to
/// the closed socket; handed on, it would tell the new connection of a reset it never had.
final class EventLoop {
    struct Interest: OptionSet, Hashable {
        let rawValue: UInt32
        static let read = Interest(rawValue: EPOLLIN.rawValue | EPOLLRDHUP.rawValue)
        static let write = Interest(rawValue: EPOLLOUT.rawValue)
    }

    struct Readiness {
        let descriptor: Int32
        let isReadable: Bool
        let isWritable: Bool
        /// EPOLLERR: the connection failed (a reset, mostly).
        let isBroken: Bool
        /// EPOLLHUP: both directions are shut.
        let isHungUp: Bool
    }

    let epoll: Int32
    let wake: Int32
    private var registered: [Int32: (interest: Interest, generation: UInt32)] = [:]
    private var nextGeneration: UInt32 = 0
    private var events = [epoll_event](repeating: epoll_event(), count: 256)

    init() throws(RelayError) {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        wake = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard epoll >= 0, wake >= 0 else {
            throw .listenerUnavailable(port: 0, reason: "epoll: " + String(cString: strerror(errno)))
        }
        set(wake, .read)
    }

    deinit {
        close(epoll)
        close(wake)
    }

    /// Registers, changes or (with an empty set, still watching for errors) keeps a descriptor.
    func set(_ descriptor: Int32, _ interest: Interest) {
        if let current = registered[descriptor] {
            guard current.interest != interest else { return }
            var event = epoll_event(events: interest.rawValue, data: Self.data(descriptor, current.generation))
            epoll_ctl(epoll, EPOLL_CTL_MOD, descriptor, &event)
            registered[descriptor] = (interest, current.generation)
        } else {
            nextGeneration &+= 1
            var event = epoll_event(events: interest.rawValue, data: Self.data(descriptor, nextGeneration))
            epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event)
            registered[descriptor] = (interest, nextGeneration)
        }
    }

    /// The descriptor in the low half, its registration's generation in the high half.
    private static func data(_ descriptor: Int32, _ generation: UInt32) -> epoll_data_t {
        epoll_data_t(u64: UInt64(generation) << 32 | UInt64(UInt32(bitPattern: descriptor)))
    }

    func remove(_ descriptor: Int32) {
        guard registered.removeValue(forKey: descriptor) != nil else { return }
        epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, nil)
    }

    func signal() {
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
    }

    /// Waits at most `milliseconds`; the wake descriptor's readiness is drained and reported.
    func wait(milliseconds: Int32, _ handle: (Readiness) -> Void) {
        let count = epoll_wait(epoll, &events, Int32(events.count), milliseconds)
        guard count > 0 else { return }
        for index in 0..<Int(count) {
            let event = events[index]
            let descriptor = Int32(bitPattern: UInt32(truncatingIfNeeded: event.data.u64))
            // Removed, or removed and registered again, since the batch was taken: not this one's.
            guard registered[descriptor]?.generation == UInt32(truncatingIfNeeded: event.data.u64 >> 32) else { continue }
            if descriptor == wake {
                var value: UInt64 = 0
                _ = read(wake, &value, 8)
            }
            handle(Readiness(
                descriptor: descriptor,
                isReadable: event.events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue) != 0,
                isWritable: event.events & EPOLLOUT.rawValue != 0,
                isBroken: event.events & EPOLLERR.rawValue != 0,
                isHungUp: event.events & EPOLLHUP.rawValue != 0))
        }
    }
}

/// Bytes waiting for a descriptor that could not take them yet; bounded by its owner.
struct ByteQueue {
    private var storage: [UInt8] = []
    private var head = 0

    /// A drained queue keeps its storage up to this size: a TLS session's output fills to the
    /// connection's bound plus a record every round of a bulk transfer (an array's capacity of
    /// twice the default bound), and growing it again each round would copy it each time.
    static let keptCapacity = 1024 * 1024

    var count: Int { storage.count - head }
    var isEmpty: Bool { head == storage.count }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        if head > 0, head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        }
        storage.append(contentsOf: bytes)
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Moves up to `buffer.count` bytes from the front into `buffer`: the count.
    mutating func take(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, self.count)
        guard count > 0 else { return 0 }
        storage.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + head, byteCount: count) }
        head += count
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        }
        return count
    }

    /// Writes what the descriptor takes; answers the errno that stopped it (0 when drained or EAGAIN).
    mutating func flush(to descriptor: Int32) -> (written: Int, error: Int32) {
        var total = 0
        while head < storage.count {
            let result = storage.withUnsafeBytes { send(descriptor, $0.baseAddress! + head, $0.count - head, Int32(MSG_NOSIGNAL)) }
            if result > 0 {
                head += result
                total += result
                continue
            }
            if result < 0, errno == EINTR { continue }
            let error = result < 0 && errno != EAGAIN && errno != EWOULDBLOCK ? errno : 0
            compact()
            return (total, error)
        }
        storage.removeAll(keepingCapacity: storage.capacity <= Self.keptCapacity)
        head = 0
        return (total, 0)
    }

    private mutating func compact() {
        if head > 64 * 1024, head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }
}

enum ReadResult {
    case bytes(Int)
    case wouldBlock
    case endOfFile
    case reset
}

enum Descriptors {
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        while true {
            let result = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if result > 0 { return .bytes(result) }
            if result == 0 { return .endOfFile }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
            return .reset
        }
    }

    /// Writes what the descriptor takes now: the count, or -errno on a broken connection.
    static func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        var total = 0
        while total < bytes.count {
            let result = send(descriptor, bytes.baseAddress! + total, bytes.count - total, Int32(MSG_NOSIGNAL))
            if result > 0 {
                total += result
                continue
            }
            if result < 0, errno == EINTR { continue }
            if result < 0, errno != EAGAIN, errno != EWOULDBLOCK { return total > 0 ? total : -Int(errno) }
            break
        }
        return total
    }
}

enum MonotonicClock {
    static func nanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    static func wallNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
