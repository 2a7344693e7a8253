import Foundation
import Synchronization
import Testing
@testable import TunnelVisionDaemonLog
@testable import TunnelVisionDatapath
import TunnelVisionModel

/// The slot logic of evidence first, driven by a hand-moved clock: each pause of the
/// tap is 1 ms, and the test decides when the recorder frees slots.
@Suite struct RecorderSlotWaitTests {
    final class Harness: @unchecked Sendable {
        let ring = PacketRing(slotCount: 4, slotCapacity: 8)
        let counters = DatapathCounters()
        let said = NSLock()
        var saidLines: [String] = []
        var clock: Int64 = 1_000_000_000
        var pauses = 0
        /// Called at every pause: what the recorder does meanwhile.
        var recorder: (Harness) -> Void = { _ in }

        func wait(_ backlog: RecorderBacklog, milliseconds: Int = 250) -> RecorderSlotWait {
            let log = DaemonLog { [unowned self] _, text in said.withLock { saidLines.append(text) } }
            return RecorderSlotWait(ring: ring, backlog: backlog, waitMilliseconds: milliseconds, counters: counters, log: log,
                                    now: { [unowned self] in clock },
                                    pause: { [unowned self] in
                                        clock += 1_000_000
                                        pauses += 1
                                        recorder(self)
                                    })
        }

        var lines: [String] { said.withLock { saidLines } }

        /// Takes a slot as the tap does and hands it to the recorder.
        func publish(_ slot: UnsafeMutableRawBufferPointer?) -> Bool {
            guard slot != nil else { return false }
            ring.publish(length: 1, wireLength: 1, timestampNanoseconds: clock)
            return true
        }

        func fill() { while publish(ring.reserve()) {} }
        func drain(_ count: Int) { ring.drain(limit: count) { _, _, _ in } }
        /// What the tap does with a packet that has no slot: a row without bytes.
        func forwardWithoutSlot() { counters.queueFull.add(1, ordering: .relaxed) }
    }

    @Test func aFreeSlotIsTakenWithoutWaiting() {
        let harness = Harness()
        let slots = harness.wait(.wait)
        #expect(harness.publish(slots.nextSlot()))
        #expect(harness.pauses == 0)
        #expect(harness.counters.slotWaits.load(ordering: .relaxed) == 0)
    }

    @Test func evidenceFirstAPacketWaitsUntilTheRecorderFreesASlot() {
        let harness = Harness()
        harness.fill()
        harness.recorder = { if $0.pauses == 30 { $0.drain(1) } }
        let slots = harness.wait(.wait)
        #expect(harness.publish(slots.nextSlot()))
        #expect(harness.pauses == 30)
        #expect(!slots.recorderTakenAsStuck)
        #expect(harness.counters.slotWaits.load(ordering: .relaxed) == 1)
        #expect(harness.counters.recorderStuck.load(ordering: .relaxed) == 0)
        #expect(harness.lines.isEmpty)
    }

    @Test func forwardingFirstAFullQueueIsAnsweredAtOnce() {
        let harness = Harness()
        harness.fill()
        let slots = harness.wait(.forward)
        #expect(slots.nextSlot() == nil)
        #expect(harness.pauses == 0)
        #expect(harness.lines.isEmpty)
    }

    @Test func aStuckRecorderIsWaitedForOnceThenPacketsGoOnUntilItHasEmptiedHalfItsQueue() {
        let harness = Harness()
        harness.fill()
        let slots = harness.wait(.wait, milliseconds: 250)
        // The bound: 250 pauses of 1 ms, then no slot and the spell is said once.
        #expect(slots.nextSlot() == nil)
        #expect(harness.pauses == 250)
        #expect(slots.recorderTakenAsStuck)
        #expect(harness.lines.count == 1)
        #expect(harness.lines[0].hasPrefix("the recorder freed no queue slot for 250 ms"))
        harness.forwardWithoutSlot()
        // While stuck, no more waiting and no more sentences.
        for _ in 0..<5 {
            #expect(slots.nextSlot() == nil)
            harness.forwardWithoutSlot()
        }
        #expect(harness.pauses == 250)
        harness.counters.unrecorded.add(2, ordering: .relaxed)
        // One slot freed is not enough: the queue is still more than half full, the packet goes on.
        harness.drain(1)
        #expect(harness.publish(slots.nextSlot()))
        #expect(slots.recorderTakenAsStuck)
        #expect(slots.nextSlot() == nil)
        #expect(harness.pauses == 250)
        // Half the queue emptied: the spell ends, said with the counts, and packets wait again.
        harness.drain(2)
        harness.clock += 1_000_000_000
        #expect(harness.publish(slots.nextSlot()))
        #expect(!slots.recorderTakenAsStuck)
        #expect(harness.lines.count == 2)
        #expect(harness.lines[1] == "the recorder caught up after 1.2 s; meanwhile 6 packets were forwarded without waiting: "
            + "4 kept as rows without bytes, 2 without a row (counted as queueFull in packet_losses); packets wait for a slot again")
        harness.fill()
        harness.recorder = { if $0.pauses == 260 { $0.drain(1) } }
        #expect(harness.publish(slots.nextSlot()))
        #expect(harness.pauses == 260)
        #expect(harness.counters.recorderStuck.load(ordering: .relaxed) == 1)
    }

    @Test func aSpellEndsWhenTheQueueEmptiesEvenWithoutAnotherPacketAndOneOpenAtStopIsSaidThen() {
        let harness = Harness()
        harness.fill()
        let slots = harness.wait(.wait, milliseconds: 10)
        #expect(slots.nextSlot() == nil)
        harness.forwardWithoutSlot()
        harness.drain(4)
        slots.noteProgress()
        #expect(!slots.recorderTakenAsStuck)
        #expect(harness.lines.count == 2)
        #expect(harness.lines[1].hasPrefix("the recorder caught up after 0.0 s; meanwhile 1 packets were forwarded without waiting: 1 kept"))
        harness.fill()
        #expect(slots.nextSlot() == nil)
        slots.finish()
        #expect(harness.lines.count == 4)
        #expect(harness.lines[3].hasPrefix("the tap stopped while the recorder was stuck, for 0.0 s; meanwhile 0 packets"))
        slots.finish()
        #expect(harness.lines.count == 4)
    }

    /// The real threads: a recorder slower than the tap never makes a packet go without a slot.
    @Test func aSlowRecorderOnItsOwnThreadSlowsTheTapAndLosesNothing() async {
        let ring = PacketRing(slotCount: 8, slotCapacity: 8)
        let counters = DatapathCounters()
        let clock = PacketClock()
        let slots = RecorderSlotWait(ring: ring, backlog: .wait, waitMilliseconds: 2_000, counters: counters,
                                     log: DaemonLog { _, _ in }, now: clock.now)
        // The recorder's side counts into a counters object of its own: received, and done.
        let recorderSide = DatapathCounters()
        let recorder = Thread {
            var last = -1
            while recorderSide.loops.load(ordering: .acquiring) == 0 || ring.depth > 0 {
                ring.drain(limit: 1) { bytes, _, _ in
                    let value = Int(bytes[0])
                    precondition(value == (last + 1) % 256, "a slot was reused before it was read")
                    last = value
                    recorderSide.packetsSeen.add(1, ordering: .relaxed)
                }
                usleep(200)
            }
        }
        recorder.start()
        var withoutSlot = 0
        for index in 0..<500 {
            guard let slot = slots.nextSlot() else { withoutSlot += 1; continue }
            slot[0] = UInt8(truncatingIfNeeded: index)
            ring.publish(length: 1, wireLength: 1, timestampNanoseconds: clock.now())
        }
        recorderSide.loops.store(1, ordering: .releasing)
        while recorderSide.packetsSeen.load(ordering: .relaxed) < UInt64(500 - withoutSlot) { try? await Task.sleep(for: .milliseconds(5)) }
        #expect(withoutSlot == 0)
        #expect(recorderSide.packetsSeen.load(ordering: .relaxed) == 500)
        #expect(counters.slotWaits.load(ordering: .relaxed) > 0)
        #expect(counters.recorderStuck.load(ordering: .relaxed) == 0)
    }
}
