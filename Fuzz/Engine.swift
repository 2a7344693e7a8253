import TunnelVisionFlows
import TunnelVisionWire

/// The whole engine on a packet stream: the input is a run of raw-IP frames, each behind a
/// two-byte length and a one-byte time step in seconds, with a small flow table so that
/// eviction and expiry happen too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEngine(_ start: UnsafeRawPointer?, _ count: Int) -> Int32 {
    guard let start, count > 0 else { return 0 }
    let input = UnsafeRawBufferPointer(start: start, count: count)
    var engine = FlowEngine(configuration: FlowEngineConfiguration(flowCapacity: 8))
    var reader = ByteReader(input)
    var time: Int64 = 1_700_000_000_000_000_000
    while let length = reader.u16(), let step = reader.u8() {
        guard let frame = reader.take(min(Int(length), reader.remaining)) else { break }
        time += Int64(step) * 1_000_000_000
        engine.process(packet: frame, linkType: .raw, timestampNanoseconds: time)
        if step > 200 {
            let batch = engine.takeBatch(now: time)
            engine.assign(rows: Dictionary(batch.flows.map { ($0.handle, Int64($0.handle)) }, uniquingKeysWith: { first, _ in first }))
        }
    }
    _ = engine.finishAll()
    return 0
}
