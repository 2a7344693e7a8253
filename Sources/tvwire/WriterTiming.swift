import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionDigest

/// `tvwire writer DIR MEGABYTES`: the capture file writer's cost, as the live recorder drives it
/// (staged rounds, 64 MiB files, no fdatasync), in CPU seconds; then SHA-256 alone over the same
/// bytes, which is what hashing while writing adds to it.
func measureWriter(directory: String, megabytes: Int) throws {
    let packet = (0..<1400).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    let count = megabytes * (1 << 20) / (packet.count + PcapFormat.recordHeaderLength)
    let writer = try CaptureFileWriter(configuration: CaptureFileConfiguration(directory: directory, flushReachesStorage: false),
                                       highestSequenceInHistory: 0)
    let before = cpuSeconds()
    try packet.withUnsafeBytes { bytes in
        for index in 0..<count {
            let stamp = 1_780_000_000_000_000_000 + Int64(index) * 1000
            if try writer.stage(bytes, timestampNanoseconds: stamp) == nil {
                try writer.writeStaged(at: Date())
                _ = try writer.stage(bytes, timestampNanoseconds: stamp)
            }
        }
    }
    try writer.writeStaged(at: Date())
    try writer.close(at: Date())
    let writing = cpuSeconds() - before

    let hashBefore = cpuSeconds()
    let hasher = SHA256Hasher()
    let round = [UInt8](repeating: 0xA5, count: 1 << 20)
    round.withUnsafeBytes { bytes in for _ in 0..<megabytes { hasher.update(bytes) } }
    _ = hasher.finish()
    let hashing = cpuSeconds() - hashBefore
    print(String(format: "writer (hashing as it writes): %d packets, %d MiB, %.2f CPU s; SHA-256 alone over %d MiB: %.2f CPU s",
                 count, megabytes, writing, megabytes, hashing))
}

private func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
