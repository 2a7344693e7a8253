import CNghttp2
import Foundation
import TunnelVisionModel
import TunnelVisionRequests

/// HTTP/2 bytes for the tests: frames built by hand around header blocks that nghttp2's own HPACK
/// encoder compresses (with its dynamic table, as a real peer's would).
final class HeaderEncoder {
    private let deflater: OpaquePointer

    init() {
        var made: OpaquePointer?
        precondition(nghttp2_hd_deflate_new(&made, 4096) == 0)
        deflater = made!
    }

    deinit { nghttp2_hd_deflate_del(deflater) }

    func block(_ fields: [(String, String)]) -> [UInt8] {
        var copies: [UnsafeMutablePointer<UInt8>] = []
        defer { copies.forEach { $0.deallocate() } }
        func copy(_ text: String) -> (UnsafeMutablePointer<UInt8>, Int) {
            let bytes = Array(text.utf8)
            let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, bytes.count))
            pointer.initialize(from: bytes, count: bytes.count)
            copies.append(pointer)
            return (pointer, bytes.count)
        }
        var pairs = fields.map { field in
            let (name, nameLength) = copy(field.0), (value, valueLength) = copy(field.1)
            return nghttp2_nv(name: name, value: value, namelen: nameLength, valuelen: valueLength, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
        }
        let bound = nghttp2_hd_deflate_bound(deflater, &pairs, pairs.count)
        var output = [UInt8](repeating: 0, count: bound)
        let written = nghttp2_hd_deflate_hd(deflater, &output, output.count, &pairs, pairs.count)
        precondition(written >= 0)
        return Array(output.prefix(written))
    }
}

enum HTTP2Frames {
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    static let endStream: UInt8 = 0x1, endHeaders: UInt8 = 0x4, padded: UInt8 = 0x8

    static func frame(_ type: UInt8, flags: UInt8 = 0, stream: UInt32, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type, flags,
                UInt8(stream >> 24 & 0x7F), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF)] + payload
    }

    static func settings(_ pairs: [(UInt16, UInt32)] = [(3, 100)]) -> [UInt8] {
        frame(4, stream: 0, pairs.flatMap { identifier, value in
            [UInt8(identifier >> 8), UInt8(identifier & 0xFF), UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        })
    }

    static let settingsAcknowledged = frame(4, flags: 0x1, stream: 0, [])

    static func headers(_ encoder: HeaderEncoder, stream: UInt32, endsStream: Bool, _ fields: [(String, String)]) -> [UInt8] {
        frame(1, flags: endHeaders | (endsStream ? endStream : 0), stream: stream, encoder.block(fields))
    }

    static func data(stream: UInt32, count: Int, padding: UInt8? = nil, endsStream: Bool = false) -> [UInt8] {
        let body = [UInt8](repeating: 0x61, count: count)
        let flags = (endsStream ? endStream : 0) | (padding == nil ? 0 : padded)
        let payload = padding.map { [$0] + body + [UInt8](repeating: 0, count: Int($0)) } ?? body
        return frame(0, flags: flags, stream: stream, payload)
    }
}

extension RequestReader {
    /// Feeds the phone's and the server's bytes in turn, in chunks of `chunk` bytes, and
    /// collects what completes, then what `finish` gives.
    mutating func readAll(_ exchanges: [(RequestDirection, [UInt8])], chunk: Int = .max, at instant: Instant = Instant(nanosecondsSinceEpoch: 1_000_000_000_000)) throws(RequestReadingError) -> [ReadRequest] {
        var read: [ReadRequest] = []
        for (direction, bytes) in exchanges {
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + chunk)
                read += try self.read(Array(bytes[start..<end]), from: direction, at: instant)
                start = end
            }
        }
        return read
    }
}
