import Foundation
import Testing
import TunnelVisionModel
import TunnelVisionRequests

/// Bytes no honest peer sends: each is an error that stops the reading, never a trap, and no
/// input makes the reader hold more than its bounds.
@Suite struct HostileRequestTests {
    typealias F = HTTP2Frames

    static func stops(_ exchanges: [(RequestDirection, [UInt8])], with expected: RequestReadingError,
                      limits: RequestReadingLimits = RequestReadingLimits(), chunk: Int = .max) {
        var reader = RequestReader(limits: limits)
        #expect(throws: expected) { try reader.readAll(exchanges, chunk: chunk) }
        #expect(reader.stopped == expected)
        // Stopped: it reads nothing more, and what was open is still given.
        #expect((try? reader.read(Array("GET / HTTP/1.1\r\n\r\n".utf8), from: .fromPhone, at: Instant.now())) == [])
        _ = reader.finish()
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func aContentLengthTooLargeOrTwiceDifferentIsRefused() {
        Self.stops([(.fromPhone, Self.bytes("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\n"))], with: .malformed(.contentLength))
        Self.stops([(.fromPhone, Self.bytes("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n"))], with: .malformed(.contentLength))
        Self.stops([(.fromPhone, Self.bytes("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n"))], with: .malformed(.contentLength))
        Self.stops([(.fromPhone, Self.bytes("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n"))], with: .malformed(.contentLength))
    }

    @Test func aHugeOrNonHexadecimalChunkSizeIsRefused() {
        let head = Self.bytes("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")
        Self.stops([(.fromPhone, head + Self.bytes("FFFFFFFFFFFFFFFFFF\r\n"))], with: .malformed(.chunkSize))
        Self.stops([(.fromPhone, head + Self.bytes("zz\r\n"))], with: .malformed(.chunkSize))
        Self.stops([(.fromPhone, head + Self.bytes("3\r\nabcX"))], with: .malformed(.chunkSize))
    }

    @Test func aHeaderSectionWithoutEndIsHeldOnlyToTheBound() {
        let limits = RequestReadingLimits.with { $0.heldBytes = 1024 }
        let endless = Self.bytes("GET / HTTP/1.1\r\n") + Array(repeating: Self.bytes("X-Pad: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n"), count: 100).flatMap { $0 }
        Self.stops([(.fromPhone, endless)], with: .beyondBound(.headerSection, limit: 1024), limits: limits)
        Self.stops([(.fromPhone, endless)], with: .beyondBound(.headerSection, limit: 1024), limits: limits, chunk: 100)
        let chunked = Self.bytes("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")
        Self.stops([(.fromPhone, chunked + [UInt8](repeating: 0x30, count: 2000))], with: .beyondBound(.heldUnit, limit: 1024), limits: limits, chunk: 100)
    }

    @Test func bytesThatAreNotHTTPAreRefusedAtOnce() {
        Self.stops([(.fromPhone, [0x16, 0x03, 0x01, 0x02, 0x00])], with: .notHTTP)
        Self.stops([(.fromPhone, Self.bytes("GET\r\n\r\n"))], with: .malformed(.requestLine))
        Self.stops([(.fromPhone, Self.bytes("GET / HTTP/1.1\r\n folded\r\n\r\n"))], with: .malformed(.headerField))
        Self.stops([(.fromPhone, Self.bytes("GET / HTTP/1.1\r\n\r\n")), (.fromServer, Self.bytes("HTTP/1.1 2000 OK\r\n\r\n"))], with: .malformed(.statusLine))
    }

    @Test func aHugeHeaderFrameIsRefusedBeforeItsBytesArrive() {
        let header: [UInt8] = [0xFF, 0xFF, 0xFF, 0x01, 0x04, 0, 0, 0, 1]
        Self.stops([(.fromPhone, F.preface + header)], with: .frameTooLarge(type: 1, length: 0xFF_FFFF, limit: 65_536 - 9))
    }

    @Test func aHugeDataFrameIsPassedOverWithoutBeingHeld() throws {
        let encoder = HeaderEncoder()
        var reader = RequestReader(limits: .with { $0.heldBytes = 1024 })
        let opening = F.preface + F.headers(encoder, stream: 1, endsStream: false, [(":method", "PUT"), (":authority", "a.example"), (":path", "/")])
        _ = try reader.read(opening + [0xFF, 0xFF, 0xFF, 0x00, 0x01, 0, 0, 0, 1], from: .fromPhone, at: Instant.now())
        let slab = [UInt8](repeating: 0x41, count: 1 << 16)
        for _ in 0..<255 { _ = try reader.read(slab, from: .fromPhone, at: Instant.now()) }
        _ = try reader.read(Array(slab.prefix(0xFFFF)), from: .fromPhone, at: Instant.now())
        #expect(reader.finish().map(\.bodyBytes) == [0xFF_FFFF])
    }

    @Test func paddingLongerThanItsFrameIsRefused() {
        let header = F.headers(HeaderEncoder(), stream: 1, endsStream: false, [(":method", "GET"), (":authority", "a"), (":path", "/")])
        Self.stops([(.fromPhone, F.preface + header + F.frame(0, flags: F.padded, stream: 1, [9, 1, 2]))], with: .malformedFrame(type: 0))
        Self.stops([(.fromPhone, F.preface + F.frame(1, flags: F.padded | F.endHeaders, stream: 1, [200, 0x82]))], with: .malformedFrame(type: 1))
        Self.stops([(.fromPhone, F.preface + F.frame(4, stream: 0, [0, 1, 0]))], with: .malformedFrame(type: 4))
        Self.stops([(.fromPhone, F.preface + F.frame(3, stream: 1, [0]))], with: .malformedFrame(type: 3))
    }

    @Test func aBadHeaderBlockIsAnHPACKError() {
        var reader = RequestReader()
        // Index 127 + 0x7F: past both tables.
        let bad = F.preface + F.frame(1, flags: F.endHeaders, stream: 1, [0xFF, 0x7F])
        #expect(throws: RequestReadingError.self) { try reader.readAll([(.fromPhone, bad)]) }
        guard case .headerCompression = reader.stopped else {
            Issue.record("stopped with \(String(describing: reader.stopped))")
            return
        }
        // A block that ends inside a field.
        var truncated = RequestReader()
        let block = HeaderEncoder().block([(":method", "GET"), (":authority", "a.example")])
        #expect(throws: RequestReadingError.self) {
            try truncated.readAll([(.fromPhone, F.preface + F.frame(1, flags: F.endHeaders, stream: 1, Array(block.dropLast(3))))])
        }
        // A request without a method.
        Self.stops([(.fromPhone, F.preface + F.headers(HeaderEncoder(), stream: 1, endsStream: true, [(":authority", "a")]))], with: .missingMethod(stream: 1))
    }

    @Test func aTruncatedFrameLeavesTheRequestOpenUntilTheEnd() throws {
        var reader = RequestReader()
        let phone = F.preface + F.headers(HeaderEncoder(), stream: 1, endsStream: false, [(":method", "POST"), (":authority", "a"), (":path", "/")])
            + Array(F.data(stream: 1, count: 100).prefix(50))
        #expect(try reader.readAll([(.fromPhone, phone)]).isEmpty)
        #expect(reader.finish().map(\.bodyBytes) == [41])
    }

    @Test func moreOpenRequestsThanTheBoundAreRefused() {
        let encoder = HeaderEncoder()
        var phone = F.preface
        for stream in stride(from: UInt32(1), through: 9, by: 2) {
            phone += F.headers(encoder, stream: stream, endsStream: true, [(":method", "GET"), (":authority", "a"), (":path", "/")])
        }
        Self.stops([(.fromPhone, phone)], with: .beyondBound(.openRequests, limit: 4), limits: .with { $0.openRequests = 4 })
        let pipelined = Array(repeating: Self.bytes("GET / HTTP/1.1\r\nHost: a\r\n\r\n"), count: 5).flatMap { $0 }
        Self.stops([(.fromPhone, pipelined)], with: .beyondBound(.openRequests, limit: 4), limits: .with { $0.openRequests = 4 })
    }

    @Test func aLongFieldIsCutToTheBound() throws {
        var reader = RequestReader(keepsPaths: true, limits: .with { $0.fieldBytes = 16 })
        let long = "/" + String(repeating: "p", count: 100)
        let phone = F.preface + F.headers(HeaderEncoder(), stream: 1, endsStream: true, [(":method", "GET"), (":authority", "a.example"), (":path", long)])
        _ = try reader.readAll([(.fromPhone, phone)])
        #expect(reader.finish().map(\.path) == [String(long.prefix(16))])
    }
}
