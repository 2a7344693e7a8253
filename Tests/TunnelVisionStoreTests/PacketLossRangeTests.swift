import Testing
import TunnelVisionModel
@testable import TunnelVisionStore

@Suite struct PacketLossRangeTests {
    /// A range asked from the beginning of time floors its start to a minute that began before
    /// an Int64 of nanoseconds reaches: the floor saturates instead of trapping.
    @Test func lossesAskedFromTheEarliestInstantAreCountedWithoutATrap() throws {
        let store = try TemporaryDatabase().open()
        let capture = try store.beginCaptureRun(toolVersion: "test", input: "tun:tv0", at: at(1))
        try store.recordPacketLoss(3, reason: .queueFull, captureRun: capture.id, at: at(2))
        let counted = try store.packetLosses(from: Instant(nanosecondsSinceEpoch: .min), to: Instant(nanosecondsSinceEpoch: .max))
        #expect(counted[.queueFull] == 3)
        #expect(Int64.min.flooredToMinute == .min)
    }
}
