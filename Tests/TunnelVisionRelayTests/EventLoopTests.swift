import Glibc
import Testing
@testable import TunnelVisionRelay

@Suite("The relay's event loop")
struct EventLoopTests {
    @Test("An event for a descriptor closed and reused within one batch does not reach the new registration")
    func staleEventOfAReusedDescriptor() throws {
        let loop = try EventLoop()
        var first: [Int32] = [0, 0], second: [Int32] = [0, 0]
        #expect(pipe(&first) == 0 && pipe(&second) == 0)
        defer { [first[0], first[1], second[0], second[1]].forEach { close($0) } }
        var one: UInt8 = 1
        _ = write(first[1], &one, 1)
        _ = write(second[1], &one, 1)
        loop.set(first[0], .read)
        loop.set(second[0], .read)

        var delivered: [Int32] = []
        var reused: Int32 = -1, closedNumber: Int32 = -1
        loop.wait(milliseconds: 1000) { readiness in
            delivered.append(readiness.descriptor)
            guard reused < 0 else { return }
            // The first event handled closes the other pipe's reading end, and a new pipe takes the number.
            let other = readiness.descriptor == first[0] ? second[0] : first[0]
            loop.remove(other)
            close(other)
            closedNumber = other
            var fresh: [Int32] = [0, 0]
            guard pipe(&fresh) == 0 else { return }
            reused = fresh[0]
            close(fresh[1])
            loop.set(reused, .read)
            if other == first[0] { first[0] = reused } else { second[0] = reused }
        }
        #expect(reused == closedNumber, "the kernel gave the new pipe the closed number")
        #expect(delivered.count == 1, "the closed descriptor's event was handed to its successor: \(delivered)")
    }
}
