import Foundation
import TunnelVisionDigest

/// Hashes the bytes a capture writer wrote, on a thread of its own, in the order they went to the
/// kernel: SHA-256 costs about as much as the copy into the page cache, and on the writer's thread
/// it bounded how fast the live recorder could take packets.
///
/// The writer hands over the very buffers it wrote (no re-read of the file, no copy), borrowed
/// from a fixed pool: when every buffer waits to be hashed, `borrow` waits for one, so what is
/// held is never more than the pool. A file's digest is asked for with the ticket `finishFile`
/// gave, which waits for every byte handed over before it.
final class CaptureHashStage: @unchecked Sendable {
    /// Something the hashing thread does, in the order it was handed over.
    private enum Work {
        case bytes(UnsafeMutableRawBufferPointer, count: Int)
        case finish(ticket: Int)
    }

    private let condition = NSCondition()
    private var queue: [Work] = []
    private var free: [UnsafeMutableRawBufferPointer] = []
    /// Buffers made so far; never more than `poolSize`.
    private var made = 0
    private var digests: [Int: String] = [:]
    private var nextTicket = 0
    private var stopped = false
    private var started = false
    /// Copies of small writes gather here before they go to the thread (see `copy`).
    private var filling: UnsafeMutableRawBufferPointer?
    private var filled = 0

    let poolSize: Int
    let bufferBytes: Int
    /// Called on the hashing thread before each buffer is hashed (tests hold it back).
    var beforeHashing: (@Sendable () -> Void)?

    init(poolSize: Int = 4, bufferBytes: Int = 1 << 20) {
        self.poolSize = max(1, poolSize)
        self.bufferBytes = max(1, bufferBytes)
    }

    deinit {
        // Only after `stop()`: the thread holds the stage until it ends.
        for buffer in free { buffer.deallocate() }
        filling?.deallocate()
    }

    /// Ends the thread once it has hashed what it holds; a writer's last act.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// A buffer of at least `minimumBytes` to fill and hand over with `hash`, waiting while every
    /// buffer of the pool is with the thread.
    func borrow(minimumBytes: Int) -> UnsafeMutableRawBufferPointer {
        condition.lock()
        defer { condition.unlock() }
        startIfNeeded()
        while free.isEmpty, made >= poolSize { condition.wait() }
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

    /// Ends the current file: its digest is everything handed over since the last `finishFile`.
    func finishFile() -> Int {
        sendFilling()
        condition.lock()
        let ticket = nextTicket
        nextTicket += 1
        condition.unlock()
        enqueue(.finish(ticket: ticket))
        return ticket
    }

    /// The lower-case hex SHA-256 of the file `ticket` ended, once the thread got there.
    func digest(_ ticket: Int) -> String {
        condition.lock()
        defer { condition.unlock() }
        while digests[ticket] == nil { condition.wait() }
        return digests.removeValue(forKey: ticket)!
    }

    private func sendFilling() {
        guard let buffer = filling else { return }
        filling = nil
        let count = filled
        filled = 0
        enqueue(.bytes(buffer, count: count))
    }

    private func enqueue(_ work: Work) {
        condition.lock()
        startIfNeeded()
        queue.append(work)
        condition.broadcast()
        condition.unlock()
    }

    /// Called with the lock held.
    private func startIfNeeded() {
        guard !started else { return }
        started = true
        let thread = Thread { [self] in run() }
        thread.name = "tv-capture-hash"
        thread.start()
    }

    private func run() {
        var hasher = SHA256Hasher()
        condition.lock()
        while true {
            while queue.isEmpty, !stopped { condition.wait() }
            if queue.isEmpty { break }
            let work = queue.removeFirst()
            condition.unlock()
            switch work {
            case .bytes(let buffer, let count):
                beforeHashing?()
                hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                condition.lock()
                free.append(buffer)
            case .finish(let ticket):
                let digest = hasher.finish()
                hasher = SHA256Hasher()
                condition.lock()
                digests[ticket] = digest
            }
            condition.broadcast()
        }
        condition.unlock()
    }
}
