import Foundation
import Testing
import TunnelVisionModel
import TunnelVisionRequests

/// HTTP/1.1 requests read from both directions of a connection.
@Suite struct HTTP1RequestTests {
    static let instant = Instant(nanosecondsSinceEpoch: 1_000_000_000_000)

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static let twoRequests = bytes(
        "GET /profile?id=7 HTTP/1.1\r\nHost: API.Example\r\nAccept: */*\r\n\r\n"
            + "POST /upload HTTP/1.1\r\nHost: api.example:8443\r\nContent-Length: 11\r\n\r\nhello world")
    static let twoResponses = bytes(
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst"
            + "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")

    @Test func aKeepAliveConnectionCarriesTwoRequestsEachWithItsStatus() throws {
        var reader = RequestReader()
        let read = try reader.readAll([(.fromPhone, Self.twoRequests), (.fromServer, Self.twoResponses)], at: Self.instant)
        #expect(read == [
            ReadRequest(instant: Self.instant, version: .http1, method: "GET", authority: "api.example", path: nil,
                        bodyBytes: 0, responseStatus: 200, stream: nil),
            ReadRequest(instant: Self.instant, version: .http1, method: "POST", authority: "api.example:8443", path: nil,
                        bodyBytes: 11, responseStatus: 201, stream: nil),
        ])
        #expect(reader.finish().isEmpty)
        #expect(reader.version == .http1)
    }

    @Test func pathsAreKeptOnlyWhenAskedFor() throws {
        var reader = RequestReader(keepsPaths: true)
        let read = try reader.readAll([(.fromPhone, Self.twoRequests), (.fromServer, Self.twoResponses)])
        #expect(read.map(\.path) == ["/profile?id=7", "/upload"])
    }

    @Test func everySplitOfTheBytesReadsTheSameRequests() throws {
        var whole = RequestReader()
        let expected = try whole.readAll([(.fromPhone, Self.twoRequests), (.fromServer, Self.twoResponses)])
        for chunk in [1, 2, 3, 7, 30] {
            var reader = RequestReader()
            #expect(try reader.readAll([(.fromPhone, Self.twoRequests), (.fromServer, Self.twoResponses)], chunk: chunk) == expected)
        }
    }

    @Test func aChunkedBodyCountsItsChunkDataWithoutTheFraming() throws {
        let request = Self.bytes(
            "PUT /v1/records HTTP/1.1\r\nHost: health.example\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
                + "5;name=value\r\n12345\r\nA\r\n0123456789\r\n0\r\nChecksum: 1\r\n\r\n"
                + "DELETE /v1/records/1 HTTP/1.1\r\nHost: health.example\r\n\r\n")
        let responses = Self.bytes("HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        for chunk in [1, 4, .max] {
            var reader = RequestReader()
            let read = try reader.readAll([(.fromPhone, request), (.fromServer, responses)], chunk: chunk)
            #expect(read.map(\.bodyBytes) == [15, 0], "chunk \(chunk)")
            #expect(read.map(\.responseStatus) == [204, 404])
            #expect(read.map(\.method) == ["PUT", "DELETE"])
        }
    }

    @Test func anInterimContinueWaitsForTheFinalStatus() throws {
        var reader = RequestReader()
        let request = Self.bytes("POST /x HTTP/1.1\r\nHost: a.example\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
        #expect(try reader.read(request, from: .fromPhone, at: Self.instant).isEmpty)
        #expect(try reader.read(Self.bytes("HTTP/1.1 100 Continue\r\n\r\n"), from: .fromServer, at: Self.instant).isEmpty)
        #expect(try reader.read(Self.bytes("abc"), from: .fromPhone, at: Self.instant).isEmpty)
        let read = try reader.read(Self.bytes("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), from: .fromServer, at: Self.instant)
        #expect(read.map(\.responseStatus) == [200])
        #expect(read.map(\.bodyBytes) == [3])
    }

    @Test func aConnectNamesItsTunnelsHostAndWhatFollowsIsNotRead() throws {
        var reader = RequestReader(keepsPaths: true)
        let read = try reader.readAll([
            (.fromPhone, Self.bytes("CONNECT tracker.example:443 HTTP/1.1\r\nHost: tracker.example:443\r\n\r\n")),
            (.fromServer, Self.bytes("HTTP/1.1 200 Connection established\r\n\r\n")),
            (.fromPhone, [0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5]),
        ])
        #expect(read == [ReadRequest(instant: Self.instant, version: .http1, method: "CONNECT", authority: "tracker.example:443",
                                     path: nil, bodyBytes: 0, responseStatus: 200, stream: nil)])
    }

    @Test func anAbsoluteFormTargetGivesTheAuthority() throws {
        var reader = RequestReader(keepsPaths: true)
        _ = try reader.read(Self.bytes("GET http://Proxy.Example/a?b HTTP/1.1\r\nHost: other\r\n\r\n"), from: .fromPhone, at: Self.instant)
        let open = reader.finish()
        #expect(open.map(\.authority) == ["proxy.example"])
        #expect(open.map(\.path) == ["/a?b"])
        #expect(open.map(\.responseStatus) == [nil])
    }

    @Test func aRequestWithoutResponseIsGivenWhenTheConnectionEnds() throws {
        var reader = RequestReader()
        let body = Self.bytes("POST /log HTTP/1.1\r\nHost: a.example\r\nContent-Length: 100\r\n\r\n") + [UInt8](repeating: 0x7A, count: 40)
        #expect(try reader.read(body, from: .fromPhone, at: Self.instant).isEmpty)
        #expect(reader.finish().map(\.bodyBytes) == [40])
    }
}
