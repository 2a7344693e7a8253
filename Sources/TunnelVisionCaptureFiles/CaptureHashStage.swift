import Foundation
import TunnelVisionDigest

/// Hashes the bytes a capture writer wrote, on a thread of its own, in the order they went to the
/// kernel: SHA-256 costs about a third of what the live recorder spends on a packet, and on a
/// gateway of two cores any thread that takes it while packets flow takes it from the datapath.
///
/// So the thread runs at the lowest priority there is (SCHED_IDLE): it hashes with CPU time
/// nothing else wants. The writer hands over the very buffers it wrote (no copy), borrowed from a
/// pool; while the thread keeps up, it hashes them from memory. When it falls behind by the whole
/// pool, the writer does not wait: it keeps its buffer and the stage notes the file range those
/// bytes went to, which the thread later reads back from the file (the page cache, in practice)
/// before that file's digest is given out. Only the daemon's user and root can write a capture
/// file, so what is read back is what was written; a file is sealed only with its full digest.
///
/// A file's digest is asked for with the ticket `finishFile` gave; whoever asks for one hashes
/// what is queued itself instead of waiting for a thread that may get no CPU.
final class CaptureHashStage: @unchecked Sendable {
    /// Something to hash, in the order it was handed over.
    private enum Work {
        case bytes(UnsafeMutableRawBufferPointer, count: Int)
        /// A few bytes outside the pool (a file's header), so that handing them over never waits.
        case few([UInt8])
        /// Bytes of the file open on `source` that were written from a buffer the writer kept:
        /// read back through `descriptor`, the stage's own duplicate, closed when done.
        case readBack(descriptor: Int32, source: Int32, offset: UInt64, count: UInt64)
        case finish(ticket: Int)
    }

    private let condition = NSCondition()
    private var queue: [Work] = []
    private var free: [UnsafeMutableRawBufferPointer] = []
    /// Buffers made so far; never more than `poolSize`.
    private var made = 0
    /// Buffers in `queue` or being hashed.
    private var held = 0
    /// Whether the thread or an owner waiting for a digest is hashing an item right now: one at a
    /// time, since a digest is over bytes in order.
    private var busy = false
    private var digests: [Int: Result<String, ReadBackFailure>] = [:]
    private var nextTicket = 0
    private var stopped = false
    private var started = false
    /// Copies of small writes gather here before they go to the thread (see `copy`).
    private var filling: UnsafeMutableRawBufferPointer?
    private var filled = 0
    /// Touched only by whoever is `busy`.
    private var hasher = SHA256Hasher()
    private var readFailure: ReadBackFailure?
    private var readBuffer: UnsafeMutableRawBufferPointer?

    let poolSize: Int
    let bufferBytes: Int
    /// Called before each buffer is hashed (tests hold the thread back).
    var beforeHashing: (@Sendable () -> Void)?
    /// Whether the thread asks for the lowest priority.
    var hashesAtIdlePriority = true
    /// Whether the thread runs at all: tests stand for a thread that gets no CPU time with false.
    var startsThread = true

    init(poolSize: Int = 16, bufferBytes: Int = 1 << 20) {
        self.poolSize = max(2, poolSize)
        self.bufferBytes = max(1, bufferBytes)
    }

    deinit {
        // Only after `stop()`: the thread holds the stage until it ends.
        for buffer in free { buffer.deallocate() }
        filling?.deallocate()
        readBuffer?.deallocate()
    }

    /// Ends the thread once it has hashed what it holds; a writer's last act.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// A buffer of at least `minimumBytes` to fill and hand over with `hash`. While every buffer of
    /// the pool is queued, the borrower hashes the oldest itself (or waits for the one being hashed).
    func borrow(minimumBytes: Int) -> UnsafeMutableRawBufferPointer {
        condition.lock()
        defer { condition.unlock() }
        startIfNeeded()
        while free.isEmpty, made >= poolSize {
            if !busy, !queue.isEmpty { hashNext() } else { condition.wait() }
        }
        return takeFree(minimumBytes: minimumBytes)
    }

    /// Gives back a borrowed buffer that holds nothing to hash.
    func giveBack(_ buffer: UnsafeMutableRawBufferPointer) {
        condition.lock()
        free.append(buffer)
        condition.signal()
        condition.unlock()
    }

    /// Hands a borrowed buffer's first `count` bytes to the thread, after everything handed so
    /// far; the buffer must not be written again (it returns to the pool once hashed).
    func hash(_ buffer: UnsafeMutableRawBufferPointer, count: Int) {
        sendFilling()
        enqueue(.bytes(buffer, count: count))
    }

    /// For the live writer, which must never wait: the first `count` bytes of `buffer`, written at
    /// `offset` of the file open on `descriptor`, go to the thread with the buffer, and a fresh
    /// buffer of at least `minimumBytes` comes back. When the thread holds all but one of the pool,
    /// nil comes back instead: the writer keeps `buffer` and its bytes will be read back from the
    /// file (whose descriptor must stay readable until then; the stage keeps a duplicate).
    func handOver(_ buffer: UnsafeMutableRawBufferPointer, count: Int, writtenTo descriptor: Int32, at offset: UInt64,
                  minimumBytes: Int) -> UnsafeMutableRawBufferPointer? {
        sendFilling()
        condition.lock()
        defer { condition.unlock() }
        startIfNeeded()
        guard held + 2 > poolSize else {
            append(.bytes(buffer, count: count))
            return takeFree(minimumBytes: minimumBytes)
        }
        if case .readBack(let duplicate, descriptor, let start, let length)? = queue.last, start + length == offset {
            queue[queue.count - 1] = .readBack(descriptor: duplicate, source: descriptor, offset: start, count: length + UInt64(count))
        } else {
            append(.readBack(descriptor: dup(descriptor), source: descriptor, offset: offset, count: UInt64(count)))
        }
        return nil
    }

    /// For bytes the writer does not keep (a record written on its own, the import's pending
    /// bytes): copied into a pool buffer, sent when it is full or before anything else.
    func copy(_ bytes: UnsafeRawBufferPointer) {
        var rest = bytes
        while !rest.isEmpty {
            let buffer = filling ?? borrow(minimumBytes: 1)
            filling = buffer
            let taken = min(buffer.count - filled, rest.count)
            UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<filled + taken])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: rest[0..<taken]))
            filled += taken
            rest = UnsafeRawBufferPointer(rebasing: rest[taken...])
            if filled == buffer.count { sendFilling() }
        }
    }

    /// For the few bytes the live writer writes outside its buffer (a file's header): queued as a
    /// copy of their own, since waiting for a pool buffer could mean waiting for a thread that gets
    /// no CPU time while packets flow.
    func copyWithoutWaiting(_ bytes: [UInt8]) {
        sendFilling()
        enqueue(.few(bytes))
    }

    /// Ends the current file: its digest is everything handed over since the last `finishFile`.
    func finishFile() -> Int {
        sendFilling()
        condition.lock()
        defer { condition.unlock() }
        let ticket = nextTicket
        nextTicket += 1
        append(.finish(ticket: ticket))
        return ticket
    }

    /// Whether the digest of the file `ticket` ended is there to take without waiting.
    func hasDigest(_ ticket: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return digests[ticket] != nil
    }

    /// The lower-case hex SHA-256 of the file `ticket` ended, or why bytes read back for it could
    /// not be read. Hashes what is queued before it on this thread rather than wait for the
    /// stage's thread, which gets CPU time only when nothing else wants it.
    func digest(_ ticket: Int) -> Result<String, ReadBackFailure> {
        condition.lock()
        defer { condition.unlock() }
        while digests[ticket] == nil {
            if !busy, !queue.isEmpty { hashNext() } else { condition.wait() }
        }
        return digests.removeValue(forKey: ticket)!
    }

    // MARK: The thread

    /// Called with the lock held.
    private func takeFree(minimumBytes: Int) -> UnsafeMutableRawBufferPointer {
        let buffer: UnsafeMutableRawBufferPointer
        if let reused = free.popLast() {
            buffer = reused
        } else {
            made += 1
            buffer = .allocate(byteCount: max(bufferBytes, minimumBytes), alignment: 64)
        }
        guard buffer.count < minimumBytes else { return buffer }
        // A record larger than the usual buffer: this one grows, the pool keeps its count.
        buffer.deallocate()
        return .allocate(byteCount: minimumBytes, alignment: 64)
    }

    private func sendFilling() {
        guard let buffer = filling else { return }
        filling = nil
        let count = filled
        filled = 0
        condition.lock()
        append(.bytes(buffer, count: count))
        condition.unlock()
    }

    private func enqueue(_ work: Work) {
        condition.lock()
        append(work)
        condition.unlock()
    }

    /// Called with the lock held.
    private func append(_ work: Work) {
        startIfNeeded()
        if case .bytes = work { held += 1 }
        queue.append(work)
        condition.broadcast()
    }

    /// Called with the lock held.
    private func startIfNeeded() {
        guard !started, startsThread else { return }
        started = true
        let thread = Thread { [self] in run() }
        thread.name = "tv-capture-hash"
        thread.start()
    }

    private func run() {
        if hashesAtIdlePriority { CaptureHashStage.lowerThisThreadsPriority() }
        condition.lock()
        while true {
            if !busy, !queue.isEmpty {
                hashNext()
            } else if stopped, queue.isEmpty {
                break
            } else {
                condition.wait()
            }
        }
        condition.unlock()
    }

    /// Takes the first item (or the next piece of it) and hashes it with the lock released.
    /// Called with the lock held and nobody busy.
    private func hashNext() {
        busy = true
        let work = queue.removeFirst()
        var rest: Work?
        if case .readBack(let descriptor, let source, let offset, let count) = work, count > UInt64(bufferBytes) {
            // Read back a buffer's worth at a time, so that an owner who waits can take over.
            rest = .readBack(descriptor: descriptor, source: source, offset: offset + UInt64(bufferBytes), count: count - UInt64(bufferBytes))
            queue.insert(rest!, at: 0)
        }
        condition.unlock()
        var digest: (ticket: Int, Result<String, ReadBackFailure>)?
        var hashed: UnsafeMutableRawBufferPointer?
        switch work {
        case .bytes(let buffer, let count):
            beforeHashing?()
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            hashed = buffer
        case .few(let bytes):
            bytes.withUnsafeBytes { hasher.update($0) }
        case .readBack(let descriptor, _, let offset, let count):
            readBack(descriptor: descriptor, offset: offset, count: Int(min(count, UInt64(bufferBytes))))
            if rest == nil { close(descriptor) }
        case .finish(let ticket):
            digest = (ticket, readFailure.map { .failure($0) } ?? .success(hasher.finish()))
            hasher = SHA256Hasher()
            readFailure = nil
        }
        condition.lock()
        if let hashed {
            free.append(hashed)
            held -= 1
        }
        if let digest { digests[digest.ticket] = digest.1 }
        busy = false
        condition.broadcast()
    }

    /// Reads `count` bytes of the file at `offset` into the stage's own buffer and hashes them.
    /// A failed or short read spoils that file's digest: it is given out as the failure.
    private func readBack(descriptor: Int32, offset: UInt64, count: Int) {
        guard readFailure == nil else { return }
        let buffer = readBuffer ?? .allocate(byteCount: bufferBytes, alignment: 64)
        readBuffer = buffer
        var done = 0
        while done < count {
            let got = pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                readFailure = ReadBackFailure(errno: got < 0 ? errno : EIO)
                return
            }
            done += got
        }
        hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }

    /// Why bytes read back for a digest could not be read (the errno; a short read is EIO).
    struct ReadBackFailure: Error {
        let errno: Int32
    }

    /// SCHED_IDLE (5 in <linux/sched.h>; the C header shows it only to GNU sources); where that is
    /// refused, the highest nice value. On Linux both act on the calling thread alone (0). A
    /// service whose system-call filter refuses both hashes at its usual priority: still correct,
    /// only felt by the datapath.
    private static func lowerThisThreadsPriority() {
        var parameters = sched_param()
        guard sched_setscheduler(0, 5, &parameters) != 0 else { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
    }
}
