import CNghttp2
import Foundation
import Testing
import TunnelVisionModel
import TunnelVisionRequests

/// The phone's side written by a real HTTP/2 client (nghttp2's own session, as curl uses it):
/// its preface, SETTINGS, WINDOW_UPDATE, Huffman-coded header blocks sharing one dynamic table,
/// and a body in DATA frames, for two names over one connection.
@Suite struct NGHTTP2ClientTests {
    /// What nghttp2's client session sends for the requests, each with its body length.
    static func clientBytes(_ requests: [(method: String, authority: String, path: String, body: Int)]) -> [UInt8] {
        var callbacks: OpaquePointer?
        precondition(nghttp2_session_callbacks_new(&callbacks) == 0)
        defer { nghttp2_session_callbacks_del(callbacks) }
        var session: OpaquePointer?
        precondition(nghttp2_session_client_new(&session, callbacks, nil) == 0)
        defer { nghttp2_session_del(session) }
        precondition(nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil, 0) == 0)
        var copies: [UnsafeMutablePointer<UInt8>] = []
        defer { copies.forEach { $0.deallocate() } }
        func copy(_ text: String) -> (UnsafeMutablePointer<UInt8>, Int) {
            let bytes = Array(text.utf8)
            let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
            pointer.initialize(from: bytes, count: bytes.count)
            copies.append(pointer)
            return (pointer, bytes.count)
        }
        for request in requests {
            var fields = [(":method", request.method), (":scheme", "https"), (":authority", request.authority),
                          (":path", request.path), ("user-agent", "curl/7.88.1"), ("accept", "*/*")].map { name, value in
                let (namePointer, nameLength) = copy(name), (valuePointer, valueLength) = copy(value)
                return nghttp2_nv(name: namePointer, value: valuePointer, namelen: nameLength, valuelen: valueLength,
                                  flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            // The body's bytes left ride in the data source's descriptor field.
            var provider = nghttp2_data_provider()
            provider.source.fd = Int32(request.body)
            provider.read_callback = { _, _, buffer, length, flags, source, _ in
                let left = Int(source!.pointee.fd)
                let count = min(left, length)
                buffer!.update(repeating: 0x78, count: count)
                source!.pointee.fd = Int32(left - count)
                if left == count { flags!.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) }
                return count
            }
            let stream = request.body > 0
                ? nghttp2_submit_request(session, nil, &fields, fields.count, &provider, nil)
                : nghttp2_submit_request(session, nil, &fields, fields.count, nil, nil)
            precondition(stream > 0)
        }
        var sent: [UInt8] = []
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            precondition(count >= 0)
            if count == 0 { break }
            sent += UnsafeBufferPointer(start: data, count: count)
        }
        return sent
    }

    @Test func aRealClientsCoalescedRequestsAreReadWithTheirBodies() throws {
        let phone = Self.clientBytes([
            (method: "GET", authority: "www.example", path: "/", body: 0),
            (method: "POST", authority: "api.example", path: "/v1/heart-rate", body: 40_000),
            (method: "GET", authority: "www.example", path: "/app.js", body: 0),
        ])
        let encoder = HeaderEncoder()
        let server = HTTP2Frames.settings() + HTTP2Frames.settingsAcknowledged
            + [1, 3, 5].flatMap { HTTP2Frames.headers(encoder, stream: $0, endsStream: true, [(":status", $0 == 3 ? "202" : "200")]) }
        for chunk in [.max, 1_000, 13] {
            var reader = RequestReader(keepsPaths: true)
            let read = try reader.readAll([(.fromPhone, phone), (.fromServer, server)], chunk: chunk)
            #expect(read.map(\.stream) == [1, 3, 5])
            #expect(read.map(\.authority) == ["www.example", "api.example", "www.example"])
            #expect(read.map(\.method) == ["GET", "POST", "GET"])
            #expect(read.map(\.path) == ["/", "/v1/heart-rate", "/app.js"])
            #expect(read.map(\.bodyBytes) == [0, 40_000, 0])
            #expect(read.map(\.responseStatus) == [200, 202, 200])
        }
    }
}

/// Real curl and real nginx over TLS, decrypted by tshark (scripts/record-request-plaintext): the
/// reads as they went, and tshark's own reading of the HEADERS as the expectation.
@Suite struct RecordedConnectionTests {
    static func reads(_ name: String) throws -> [(RequestDirection, [UInt8])] {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
        return try String(contentsOf: file, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let hex = Array(line.trimmingCharacters(in: .whitespaces).utf8)
            let bytes = stride(from: 0, to: hex.count - 1, by: 2).map { UInt8(String(decoding: hex[$0...$0 + 1], as: UTF8.self), radix: 16)! }
            return (line.hasPrefix("\t") ? .fromServer : .fromPhone, bytes)
        }
    }

    @Test func curlsTwoRequestsToNginxOverOneConnectionAreReadAsTsharkReadsThem() throws {
        let reads = try Self.reads("curl-nginx-h2.txt")
        #expect(reads.count == 10)
        var reader = RequestReader(keepsPaths: true)
        let read = try reader.readAll(reads)
        #expect(read.map(\.stream) == [1, 3])
        #expect(read.map(\.method) == ["GET", "POST"])
        #expect(read.map(\.authority) == ["www.example:8443", "api.example"])
        #expect(read.map(\.path) == ["/", "/upload?user=7"])
        #expect(read.map(\.bodyBytes) == [0, 3000])
        #expect(read.map(\.responseStatus) == [200, 201])
        #expect(reader.finish().isEmpty)
    }
}
