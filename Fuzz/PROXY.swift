import TunnelVisionModel
import TunnelVisionWire

/// The PROXY protocol header (v1 and v2): the input is the phone's stream, read alone and through
/// the cleartext preludes the engine walks; an offset handed back lies inside what was read.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPROXY(_ start: UnsafeRawPointer?, _ count: Int) -> Int32 {
    guard let start, count > 0 else { return 0 }
    let input = UnsafeRawBufferPointer(start: start, count: count)
    if case .header(_, let offset) = PROXYPrelude.readClient(input) { precondition(offset <= count) }
    var upgrade = CleartextUpgrade()
    upgrade.advanceClient(over: input, opening: .unrecognised)
    if case .upgraded(_, let offset)? = upgrade.decision { precondition(offset <= count) }
    return 0
}
