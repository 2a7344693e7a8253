import Foundation
import TunnelVisionModel

/// The bytes of one direction that did not yet make a whole unit. A parser consumes what it can
/// straight from each read; only a unit split across reads is copied, and never more than the
/// limit stays held.
struct HeldBytes {
    private(set) var bytes: [UInt8] = []

    /// Hands the held bytes and then `input` to `consume`, which returns how many it used.
    mutating func feed(
        _ input: UnsafeRawBufferPointer, limit: Int, consume: (UnsafeRawBufferPointer) throws -> Int
    ) throws {
        if bytes.isEmpty {
            let used = try consume(input)
            try keep(UnsafeRawBufferPointer(rebasing: input[used...]), limit: limit)
        } else {
            var pending = bytes
            bytes = []
            pending.append(contentsOf: input)
            try pending.withUnsafeBytes { all in
                let used = try consume(all)
                try keep(UnsafeRawBufferPointer(rebasing: all[used...]), limit: limit)
            }
        }
    }

    private mutating func keep(_ rest: UnsafeRawBufferPointer, limit: Int) throws {
        guard rest.count <= limit else { throw RequestReadingError.beyondBound(.heldUnit, limit: limit) }
        bytes = Array(rest)
    }
}

/// A request being read: its facts so far, and which of its ends have been seen.
struct OpenRequest {
    let instant: Instant
    let method: String
    let authority: String?
    let path: String?
    var bodyBytes: Int64 = 0
    var status: Int?
    var bodyEnded = false
    var responseEnded = false
}

/// Bytes as text, cut to a bound, with what is not UTF-8 replaced.
func boundedText(_ bytes: some Collection<UInt8>, limit: Int) -> String {
    String(decoding: bytes.prefix(limit), as: UTF8.self)
}

extension OpenRequest {
    func read(_ version: ReadRequest.Version, stream: UInt32?) -> ReadRequest {
        ReadRequest(
            instant: instant, version: version, method: method, authority: authority, path: path,
            bodyBytes: bodyBytes, responseStatus: status, stream: stream)
    }
}
