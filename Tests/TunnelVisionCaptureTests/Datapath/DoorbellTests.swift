import Foundation
import Synchronization
import Testing
@testable import TunnelVisionDatapath

/// The wake-up between the tap and the recorder: a sleeper is woken by the ring, not
/// by its timeout, and a wait whose condition holds does not sleep at all.
@Suite struct DoorbellTests {
    private static func elapsed(_ body: () -> Void) -> Duration {
        ContinuousClock().measure(body)
    }

    @Test func aSleeperWakesAtTheRingLongBeforeItsTimeout() {
        let bell = Doorbell()
        let ready = Atomic<Bool>(false)
        let woke = Atomic<Bool>(false)
        let done = Atomic<Bool>(false)
        let sleeper = Thread {
            let held = bell.wait(timeoutNanoseconds: 30_000_000_000) { ready.load(ordering: .acquiring) }
            woke.store(held, ordering: .releasing)
            done.store(true, ordering: .releasing)
        }
        let waited = Self.elapsed {
            sleeper.start()
            while !bell.hasSleeper { usleep(1_000) }
            ready.store(true, ordering: .releasing)
            bell.ring()
            while !done.load(ordering: .acquiring) { usleep(1_000) }
        }
        let wokeByTheRing = woke.load(ordering: .acquiring)
        #expect(wokeByTheRing)
        #expect(waited < .seconds(10))
    }

    @Test func aWaitWhoseConditionHoldsReturnsAtOnceAndOneThatNeverHoldsAtItsTimeout() {
        let bell = Doorbell()
        var held = false
        let atOnce = Self.elapsed { held = bell.wait(timeoutNanoseconds: 30_000_000_000) { true } }
        #expect(held && atOnce < .seconds(10))
        let timedOut = Self.elapsed { held = bell.wait(timeoutNanoseconds: 20_000_000) { false } }
        #expect(!held && timedOut >= .milliseconds(20))
        // Ringing with nobody asleep is only a look.
        bell.ring()
        #expect(!bell.hasSleeper)
    }
}
