import Foundation
import TunnelVisionModel
import TunnelVisionRequests

/// The request reader: the input is a flags byte (bit 0 keeps paths, bits 1 to 4 a chunk size,
/// 0 for whole), two bytes that split the rest into the phone's and the server's plaintext, and
/// those bytes, fed in alternating chunks. Any error is fine; a trap, a leak or memory beyond the
/// bounds is not. Whatever it reads holds the bounds it promises.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequests(_ start: UnsafeRawPointer?, _ count: Int) -> Int32 {
    guard let start, count >= 3 else { return 0 }
    let input = Array(UnsafeRawBufferPointer(start: start, count: count))
    let flags = input[0]
    let split = min(Int(input[1]) << 8 | Int(input[2]), count - 3)
    let phone = input[3..<3 + split], server = input[(3 + split)...]
    let chunk = Int(flags >> 1 & 0xF)
    let limits = RequestReadingLimits.with {
        $0.heldBytes = 4096
        $0.openRequests = 8
        $0.headerTableBytes = 4096
        $0.fieldBytes = 64
    }
    var reader = RequestReader(keepsPaths: flags & 1 != 0, limits: limits)
    var read: [ReadRequest] = []
    var phoneAt = phone.startIndex, serverAt = server.startIndex
    let instant = Instant(nanosecondsSinceEpoch: 0)
    while phoneAt < phone.endIndex || serverAt < server.endIndex {
        let phoneEnd = chunk == 0 ? phone.endIndex : min(phone.endIndex, phoneAt + chunk)
        let serverEnd = chunk == 0 ? server.endIndex : min(server.endIndex, serverAt + chunk)
        do {
            if phoneAt < phoneEnd { read += try reader.read(Array(phone[phoneAt..<phoneEnd]), from: .fromPhone, at: instant) }
            if serverAt < serverEnd { read += try reader.read(Array(server[serverAt..<serverEnd]), from: .fromServer, at: instant) }
        } catch {
            precondition(reader.stopped == error)
            break
        }
        phoneAt = phoneEnd
        serverAt = serverEnd
    }
    read += reader.finish()
    precondition(read.count <= phone.count)
    for request in read {
        precondition(request.bodyBytes >= 0 && request.bodyBytes <= Int64(phone.count))
        precondition(request.method.utf8.count <= 64 * 3 && (request.authority?.utf8.count ?? 0) <= 64 * 3)
        precondition(flags & 1 != 0 || request.path == nil)
    }
    return 0
}
