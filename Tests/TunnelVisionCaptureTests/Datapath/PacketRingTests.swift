import Testing
@testable import TunnelVisionDatapath

@Suite struct PacketRingTests {
    private func offer(_ ring: PacketRing, _ bytes: [UInt8], stamp: Int64) -> Bool {
        guard let slot = ring.reserve() else { return false }
        bytes.withUnsafeBytes { source in slot.copyMemory(from: UnsafeRawBufferPointer(rebasing: source.prefix(slot.count))) }
        ring.publish(length: bytes.count, wireLength: bytes.count + 1, timestampNanoseconds: stamp)
        return true
    }

    @Test func aFullRingRefusesAtOnceAndGivesPacketsBackInOrderAcrossTheWrap() {
        let ring = PacketRing(slotCount: 3, slotCapacity: 4)
        var received: [([UInt8], Int, Int64)] = []
        for round in 0..<4 {
            let base = UInt8(round * 10)
            #expect(offer(ring, [base, base + 1], stamp: Int64(round * 10)))
            #expect(offer(ring, [base + 2], stamp: Int64(round * 10 + 1)))
            #expect(offer(ring, [base + 3, base + 4, base + 5], stamp: Int64(round * 10 + 2)))
            #expect(!offer(ring, [9], stamp: 0))
            #expect(ring.depth == 3)
            let moved = ring.drain(limit: 2) { received.append((Array($0), $1, $2)) }
            #expect(moved == 2)
            #expect(ring.drain(limit: 10) { received.append((Array($0), $1, $2)) } == 1)
            #expect(ring.depth == 0)
        }
        #expect(received.count == 12)
        #expect(received[9].0 == [30, 31] && received[9].1 == 3 && received[9].2 == 30)
        #expect(received[11].0 == [33, 34, 35] && received[11].2 == 32)
    }

    @Test func aPacketLongerThanItsSlotIsCutToTheSlot() {
        let ring = PacketRing(slotCount: 2, slotCapacity: 4)
        #expect(offer(ring, [1, 2, 3, 4, 5, 6], stamp: 7))
        var seen: [([UInt8], Int)] = []
        ring.drain(limit: 1) { bytes, wire, _ in seen.append((Array(bytes), wire)) }
        #expect(seen.map(\.0) == [[1, 2, 3, 4]])
        #expect(seen.map(\.1) == [7])
    }

    @Test func aPacketCanStartAfterAHeaderThatStaysInTheSlot() {
        let ring = PacketRing(slotCount: 2, slotCapacity: 8)
        guard let slot = ring.reserve() else { Issue.record("no slot"); return }
        ([9, 9, 1, 2, 3] as [UInt8]).withUnsafeBytes { slot.copyMemory(from: $0) }
        ring.publish(start: 2, length: 3, wireLength: 3, timestampNanoseconds: 1)
        var seen: [[UInt8]] = []
        ring.drain(limit: 1) { bytes, _, _ in seen.append(Array(bytes)) }
        #expect(seen == [[1, 2, 3]])
    }
}
