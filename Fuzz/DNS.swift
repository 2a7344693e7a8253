import TunnelVisionWire

/// DNS: the input is a response message over UDP, and a TCP stream of length-prefixed messages.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDNS(_ start: UnsafeRawPointer?, _ count: Int) -> Int32 {
    guard let start, count > 0 else { return 0 }
    let input = UnsafeRawBufferPointer(start: start, count: count)
    _ = DNSResponse(message: input)
    _ = DNSOverTCP.forEachMessage(in: input, from: 0) { _ = DNSResponse(message: $0) }
    return 0
}
