import Foundation
import Testing
import TunnelVisionModel
import TunnelVisionRequests

/// HTTP/2 requests: streams, coalescing, header blocks in pieces, bodies in DATA frames.
@Suite struct HTTP2RequestTests {
    typealias F = HTTP2Frames
    static let instant = Instant(nanosecondsSinceEpoch: 1_000_000_000_000)

    /// Two streams for two names on one connection, as a browser coalesces them; the second
    /// request's body comes in a padded DATA frame and an empty one that ends it.
    static func coalesced() -> (phone: [UInt8], server: [UInt8]) {
        let phoneEncoder = HeaderEncoder(), serverEncoder = HeaderEncoder()
        let phone = F.preface + F.settings() + F.settingsAcknowledged
            + F.headers(phoneEncoder, stream: 1, endsStream: true, [
                (":method", "GET"), (":scheme", "https"), (":authority", "www.example"), (":path", "/index.html"), ("user-agent", "app/1")])
            + F.headers(phoneEncoder, stream: 3, endsStream: false, [
                (":method", "POST"), (":scheme", "https"), (":authority", "api.example"), (":path", "/v1/steps"), ("user-agent", "app/1")])
            + F.data(stream: 3, count: 700, padding: 20) + F.data(stream: 3, count: 300) + F.data(stream: 3, count: 0, endsStream: true)
        let server = F.settings([(4, 65535)]) + F.settingsAcknowledged
            + F.headers(serverEncoder, stream: 1, endsStream: false, [(":status", "200"), ("content-type", "text/html")])
            + F.data(stream: 1, count: 5000, endsStream: true)
            + F.frame(8, stream: 0, [0, 0, 0x10, 0])
            + F.headers(serverEncoder, stream: 3, endsStream: true, [(":status", "201"), ("content-type", "text/html")])
        return (phone, server)
    }

    @Test func twoStreamsForTwoAuthoritiesAreTwoRequests() throws {
        let (phone, server) = Self.coalesced()
        var reader = RequestReader()
        let read = try reader.readAll([(.fromPhone, phone), (.fromServer, server)], at: Self.instant)
        #expect(read == [
            ReadRequest(instant: Self.instant, version: .http2, method: "GET", authority: "www.example", path: nil,
                        bodyBytes: 0, responseStatus: 200, stream: 1),
            ReadRequest(instant: Self.instant, version: .http2, method: "POST", authority: "api.example", path: nil,
                        bodyBytes: 1000, responseStatus: 201, stream: 3),
        ])
        #expect(reader.version == .http2)
        #expect(reader.finish().isEmpty)
    }

    @Test func everySplitOfTheFramesReadsTheSameRequests() throws {
        let (phone, server) = Self.coalesced()
        var whole = RequestReader(keepsPaths: true)
        let expected = try whole.readAll([(.fromPhone, phone), (.fromServer, server)])
        #expect(expected.map(\.path) == ["/index.html", "/v1/steps"])
        for chunk in [1, 5, 9, 10, 100] {
            var reader = RequestReader(keepsPaths: true)
            #expect(try reader.readAll([(.fromPhone, phone), (.fromServer, server)], chunk: chunk) == expected, "chunk \(chunk)")
        }
    }

    @Test func aHeaderBlockGoesOnInContinuationFrames() throws {
        let encoder = HeaderEncoder()
        let block = encoder.block([(":method", "PATCH"), (":authority", "cloud.example"), (":path", "/x"), ("cookie", String(repeating: "c", count: 300))])
        let thirds = [block.prefix(10), block.dropFirst(10).prefix(10), block.dropFirst(20)].map(Array.init)
        let phone = F.preface + F.frame(1, flags: F.endStream, stream: 5, thirds[0])
            + F.frame(9, stream: 5, thirds[1]) + F.frame(9, flags: F.endHeaders, stream: 5, thirds[2])
        var reader = RequestReader()
        #expect(try reader.readAll([(.fromPhone, phone)], chunk: 7).isEmpty)
        let read = try reader.readAll([(.fromServer, F.headers(HeaderEncoder(), stream: 5, endsStream: true, [(":status", "204")]))])
        #expect(read.map(\.method) == ["PATCH"])
        #expect(read.map(\.authority) == ["cloud.example"])
        #expect(read.map(\.responseStatus) == [204])
    }

    @Test func anotherFrameInsideAHeaderBlockStopsTheReading() {
        let block = HeaderEncoder().block([(":method", "GET"), (":authority", "a.example"), (":path", "/")])
        let phone = F.preface + F.frame(1, stream: 1, Array(block.prefix(4))) + F.data(stream: 1, count: 3)
        var reader = RequestReader()
        #expect(throws: RequestReadingError.continuationExpected) { try reader.readAll([(.fromPhone, phone)]) }
        #expect(reader.stopped == .continuationExpected)
    }

    @Test func aResetStreamIsARequestWithoutStatus() throws {
        let phone = F.preface + F.headers(HeaderEncoder(), stream: 1, endsStream: false, [(":method", "POST"), (":authority", "a.example"), (":path", "/")])
            + F.data(stream: 1, count: 10) + F.frame(3, stream: 1, [0, 0, 0, 8])
        var reader = RequestReader()
        let read = try reader.readAll([(.fromPhone, phone)])
        #expect(read.map(\.bodyBytes) == [10])
        #expect(read.map(\.responseStatus) == [nil])
    }

    /// nginx answers a POST it does not read and resets the stream; the phone's body, already
    /// sent, reaches the relay after the reset, and it is still the phone's body.
    @Test func aBodyThatFollowsTheServersAnswerAndResetIsCountedWhole() throws {
        let serverEncoder = HeaderEncoder()
        let headers = F.preface + F.headers(HeaderEncoder(), stream: 1, endsStream: false, [(":method", "POST"), (":authority", "a.example"), (":path", "/upload")])
        let answerAndReset = F.headers(serverEncoder, stream: 1, endsStream: true, [(":status", "201")]) + F.frame(3, stream: 1, [0, 0, 0, 0])
        var reader = RequestReader()
        #expect(try reader.readAll([(.fromPhone, headers), (.fromServer, answerAndReset)]).isEmpty)
        let read = try reader.readAll([(.fromPhone, F.data(stream: 1, count: 2500, endsStream: true))])
        #expect(read.map(\.bodyBytes) == [2500])
        #expect(read.map(\.responseStatus) == [201])
        // A reset before any answer ends the request at once (the phone will send no more).
        var refused = RequestReader()
        let refusal = try refused.readAll([(.fromPhone, headers), (.fromServer, F.frame(3, stream: 1, [0, 0, 0, 7]))])
        #expect(refusal.map(\.bodyBytes) == [0])
    }

    @Test func anInformationalStatusIsFollowedByTheFinalOne() throws {
        let serverEncoder = HeaderEncoder()
        let phone = F.preface + F.headers(HeaderEncoder(), stream: 1, endsStream: true, [(":method", "GET"), (":authority", "a.example"), (":path", "/")])
        let server = F.headers(serverEncoder, stream: 1, endsStream: false, [(":status", "103"), ("link", "</s.css>")])
            + F.headers(serverEncoder, stream: 1, endsStream: false, [(":status", "200")])
        var reader = RequestReader()
        #expect(try reader.readAll([(.fromPhone, phone), (.fromServer, server)]).map(\.responseStatus) == [200])
    }

    @Test func theServersBytesBeforeThePrefaceWaitForIt() throws {
        let (phone, server) = Self.coalesced()
        var reader = RequestReader()
        #expect(try reader.readAll([(.fromServer, Array(server.prefix(30)))]).isEmpty)
        let read = try reader.readAll([(.fromPhone, phone), (.fromServer, Array(server.dropFirst(30)))])
        #expect(read.map(\.responseStatus) == [200, 201])
    }

    /// The phone allows a larger table (8192 bytes); the server's encoder may grow to it only
    /// after acknowledging, by an update at the start of a block (RFC 7541 § 6.3).
    static func grownTable(updateBeforeAcknowledging: Bool) -> (phone: [UInt8], server: [UInt8]) {
        let phone = F.preface + F.settings([(1, 8192)])
            + F.headers(HeaderEncoder(), stream: 1, endsStream: true, [(":method", "GET"), (":authority", "a.example"), (":path", "/")])
        let update: [UInt8] = [0x3F, 0xE1, 0x3F]
        let block = F.frame(1, flags: F.endHeaders | F.endStream, stream: 1, update + HeaderEncoder().block([(":status", "200")]))
        let server = F.settings() + (updateBeforeAcknowledging ? block + F.settingsAcknowledged : F.settingsAcknowledged + block)
        return (phone, server)
    }

    @Test func aLargerHeaderTableTakesEffectAtTheAcknowledgement() throws {
        let (phone, server) = Self.grownTable(updateBeforeAcknowledging: false)
        var reader = RequestReader()
        #expect(try reader.readAll([(.fromPhone, phone), (.fromServer, server)]).map(\.responseStatus) == [200])
        let (early, earlyServer) = Self.grownTable(updateBeforeAcknowledging: true)
        var tooEarly = RequestReader()
        #expect(throws: RequestReadingError.self) { try tooEarly.readAll([(.fromPhone, early), (.fromServer, earlyServer)]) }
        var bounded = RequestReader(limits: .with { $0.headerTableBytes = 4096 })
        #expect(throws: RequestReadingError.self) { try bounded.readAll([(.fromPhone, phone), (.fromServer, server)]) }
    }
}
