import Testing
import TunnelVisionModel
@testable import TunnelVisionWire

@Suite struct StreamOpeningTests {
    @Test(arguments: [
        (bytes("16 0301 0200 01"), StreamOpening?.some(.tlsHandshake)),
        (bytes("16 0303 0004 01"), .tlsHandshake),
        (bytes("16 0305 0200 01"), .unrecognised),
        (bytes("16 0301 0003 01"), .unrecognised),
        (bytes("16 0301 4001 01"), .unrecognised),
        (bytes("16 0301 0200 02"), .unrecognised),
        (bytes("16 0301 02"), nil),
        (Array("GET /index.html HTTP/1.1\r\n".utf8), .httpRequest),
        (Array("POST /api HTTP/1.0\n".utf8), .httpRequest),
        (Array("PRI * HTTP/2.0\r\n".utf8), .httpRequest),
        (Array("GET / HTTP/1.1\r".utf8), nil),
        (Array("GET  / HTTP/1.1\r\n".utf8), .unrecognised),
        (Array("GET / HTTP/1.1 \r\n".utf8), .unrecognised),
        (Array("GET / HTTX/1.1\r\n".utf8), .unrecognised),
        (Array("SSH-2.0-OpenSSH_9.0\r\n".utf8), .unrecognised),
        (Array("{\"json\": 1}".utf8), .unrecognised),
    ])
    func decidesFromTheFirstBytes(stream: [UInt8], expected: StreamOpening?) {
        var detector = StreamOpeningDetector()
        // Byte by byte, as segments might deliver it.
        for byte in stream { [byte].withUnsafeBytes { _ = detector.feed($0) } }
        #expect(detector.opening == expected)
    }

    @Test func aRequestLineWithoutItsEndBy8192BytesIsUnrecognised() {
        var detector = StreamOpeningDetector()
        let stream = Array("GET /".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 8200)
        stream.withUnsafeBytes { _ = detector.feed($0) }
        #expect(detector.opening == .unrecognised)
    }
}
