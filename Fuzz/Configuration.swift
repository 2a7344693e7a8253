import TunnelVisionModel

// scripts/fuzz compiles this file together with the daemon's configuration sources
// (Sources/TunnelVisionConfiguration), over the pure modules they import: the parser needs no
// TUN device, libpcap or SQLite.

/// The configuration parser: the first byte chooses a file (its bytes as read from disk, LF or
/// CRLF, any encoding) or a command line (NUL-separated arguments), or both; the rest is the input.
/// An accepted configuration must hold only values inside the ranges the parser states.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ start: UnsafeRawPointer?, _ count: Int) -> Int32 {
    guard let start, count > 0 else { return 0 }
    let input = UnsafeRawBufferPointer(start: start, count: count)
    let mode = input[0] % 3
    let body = Array(input[1...])
    var arguments: [String] = []
    var file: [UInt8]? = nil
    switch mode {
    case 0:
        file = body
    case 1:
        arguments = body.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    default:
        // The file up to the first NUL, then a command line that overrides it.
        let parts = body.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
        file = Array(parts[0])
        if parts.count > 1 {
            arguments = parts[1].split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        }
    }
    do {
        let configuration = try ConfigurationParser.parse(arguments: ["--config", "/fuzz.conf"] + arguments) { _ throws(ConfigurationError) in file }
        precondition(NumberRanges.snapshotLength.contains(configuration.snapshotLength))
        precondition(NumberRanges.rotationBytes.contains(configuration.rotationBytes))
        precondition(NumberRanges.mtu.contains(configuration.mtu))
        precondition(NumberRanges.queuePackets.contains(configuration.queuePackets))
        precondition(NumberRanges.keepDays.contains(configuration.retention.keepDays))
        precondition(configuration.retention.maximumBytes >= 1)
        precondition(configuration.relayPort >= 1 && configuration.inspectedPorts.allSatisfy { $0 >= 1 })
        // What the daemon publishes and derives from it must not trap either.
        _ = configuration.publishedSettings
        _ = configuration.relayConfiguration
        _ = configuration.captureFiles
    } catch {
        // A refusal is the expected outcome for most inputs; each case carries its own fields.
        _ = "\(error)"
    }
    return 0
}
