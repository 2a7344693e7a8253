import Foundation
import TunnelVisionFlows
import TunnelVisionImport
import TunnelVisionModel
import TunnelVisionWire

/// Loads the file's packets into memory first, so that the figure is the parser's, not the disk's.
func measure(path: String, rounds: Int, wholeEngine: Bool) throws {
    let reader = try CaptureImportReader(path: path)
    var frames: [[UInt8]] = []
    var stamps: [Int64] = []
    try reader.forEachPacket { packet in
        guard let time = packet.timestampNanoseconds else { return true }
        frames.append(Array(packet.bytes))
        stamps.append(time)
        return true
    }
    let linkType = reader.linkType
    var decoded = 0
    let start = DispatchTime.now().uptimeNanoseconds
    let cpuStart = processorSeconds()
    // One engine for every round, each round two hours after the last: its flows are new ones and
    // the previous round's expire, as a long capture's would, without a fresh table each time.
    var engine = FlowEngine()
    let roundGap: Int64 = 2 * 60 * 60 * 1_000_000_000
    for round in 0..<max(rounds, 1) {
        if wholeEngine {
            let shift = Int64(round) * roundGap
            for index in frames.indices {
                frames[index].withUnsafeBytes {
                    engine.process(packet: $0, linkType: linkType, timestampNanoseconds: stamps[index] + shift)
                }
                if index % 4096 == 0 { _ = engine.takeBatch(now: stamps[index] + shift) }
            }
        } else {
            for frame in frames {
                frame.withUnsafeBytes { if DecodedPacket(frame: $0, linkType: linkType) != nil { decoded += 1 } }
            }
        }
    }
    if wholeEngine {
        _ = engine.finishAll()
        decoded = Int(engine.statistics.packets - engine.statistics.undecodable)
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let processor = processorSeconds() - cpuStart
    let total = frames.count * max(rounds, 1)
    // Per processor second too: on a shared machine the wall clock counts other people's work.
    print(String(format: "%d packets in %.3f s: %.0f pkt/s wall, %.0f pkt/s per CPU second (%d decoded)",
                 total, elapsed, Double(total) / elapsed, Double(total) / processor, decoded))
}

/// Fills the table with `flows` TCP flows whose TLS handshake was read, and prints how much the
/// process grew per flow.
func measureFlowMemory(flows: Int) {
    let before = residentBytes()
    var engine = FlowEngine(configuration: FlowEngineConfiguration(flowCapacity: flows))
    var stamp: Int64 = 1_700_000_000_000_000_000
    for index in 0..<flows {
        for frame in SyntheticCapture.handshake(flowIndex: index) {
            frame.withUnsafeBytes { engine.process(packet: $0, linkType: .raw, timestampNanoseconds: stamp) }
            stamp += 1000
        }
        if index % 4096 == 0 { _ = engine.takeBatch(now: stamp) }
    }
    _ = engine.takeBatch(now: stamp)
    let after = residentBytes()
    print("live flows \(engine.liveFlowCount), resident growth \(after - before) bytes, \((after - before) / max(flows, 1)) bytes per flow")
    print("in line: a live flow \(FlowEngine.liveFlowStride) bytes, of which its state \(MemoryLayout<FlowState>.stride)")
}

private func processorSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

private func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
