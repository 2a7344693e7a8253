import Foundation
import Testing
@testable import TunnelVisionDatapath

/// A real TUN device, made by the test (root only) and gone when its descriptor closes: the
/// kernel decides which offload flags it takes, and a refusal leaves plain reads, not a failure.
@Suite(.enabled(if: geteuid() == 0, "only root makes a TUN device"), .serialized)
struct TunDeviceTests {
    static func name(_ suffix: String) -> String { "tvt\(getpid() % 100_000)\(suffix)" }

    @Test func theKernelTakesTheOffloadFlagsAndEachReadCarriesAVirtioHeader() throws {
        let device = try TunDevice(name: Self.name("o"), segmentationOffload: true)
        #expect(device.headerLength == 10)
        // TCP always; UDP from Linux 6.2 on, which this machine runs.
        #expect(device.reads == .offload(udp: true))
    }

    @Test func flagsTheKernelRefusesLeavePlainReads() throws {
        // 0x80 is no TUN_F_ flag: the kernel answers EINVAL.
        let device = try TunDevice(name: Self.name("r"), offloadAttempts: [0x80])
        #expect(device.reads == .plainRefused(errno: EINVAL))
        #expect(device.headerLength == 0)
    }

    @Test func aRefusedRichSetFallsBackToTheNextOne() throws {
        let device = try TunDevice(name: Self.name("f"), offloadAttempts: [0x80 | 0x07, 0x07])
        #expect(device.reads == .offload(udp: false))
        #expect(device.headerLength == 10)
    }

    @Test func offloadOffInTheConfigurationReadsPlain() throws {
        let device = try TunDevice(name: Self.name("p"), segmentationOffload: false)
        #expect(device.reads == .plain)
        #expect(device.headerLength == 0)
    }
}
