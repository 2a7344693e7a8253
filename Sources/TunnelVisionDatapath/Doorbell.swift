import Glibc
import Synchronization

/// How one thread sleeps until another has something for it, without polling: the sleeper waits
/// on a condition variable, and the other side pays for a wake-up only while someone sleeps — a
/// fence and one atomic load otherwise, cheap enough to ring with every packet.
///
/// The sleeper announces itself before it looks at the condition a last time, and the ringer
/// fences between making the condition true and looking for a sleeper: one of the two always
/// sees the other, so no ring is lost. Every wait is bounded all the same.
public final class Doorbell: @unchecked Sendable {
    private let sleepers = Atomic<Int>(0)
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        // Monotonic: a clock step must not stretch or cut a wait.
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Whether a thread sleeps on it now.
    public var hasSleeper: Bool { sleepers.load(ordering: .relaxed) > 0 }

    /// Sleeps until rung or for at most `timeoutNanoseconds`, unless `ready` already holds.
    /// Returns whether `ready` held when it looked (before sleeping, or after).
    @discardableResult
    public func wait(timeoutNanoseconds: Int64, until ready: () -> Bool) -> Bool {
        if ready() { return true }
        guard timeoutNanoseconds > 0 else { return false }
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let end = Int64(deadline.tv_nsec) + timeoutNanoseconds % 1_000_000_000
        deadline.tv_sec += Int(timeoutNanoseconds / 1_000_000_000) + Int(end / 1_000_000_000)
        deadline.tv_nsec = Int(end % 1_000_000_000)
        pthread_mutex_lock(mutex)
        sleepers.add(1, ordering: .sequentiallyConsistent)
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        var held = ready()
        if !held {
            _ = pthread_cond_timedwait(condition, mutex, &deadline)
            held = ready()
        }
        sleepers.subtract(1, ordering: .relaxed)
        pthread_mutex_unlock(mutex)
        return held
    }

    /// Wakes a sleeper, if there is one; call after making its condition true.
    public func ring() {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        guard sleepers.load(ordering: .sequentiallyConsistent) > 0 else { return }
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }
}
