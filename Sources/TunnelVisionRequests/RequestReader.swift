import Foundation
import TunnelVisionModel

/// The requests the phone sent inside one inspected connection, read from the plaintext of both
/// directions as the relay carries it: HTTP/1.1 (request lines, headers, body framing, the
/// server's status lines) or HTTP/2 (its preface, frames, and header blocks through nghttp2's
/// HPACK inflater). Facts only: method, authority, body size, response status, and the path
/// only when asked for.
///
/// Pure: the caller hands in each read with its instant. Its memory is bounded by `limits`; a
/// read it cannot follow is an error, after which it reads nothing more of the connection.
/// Owned by one connection, so it cannot be copied (the HPACK tables are its own).
public struct RequestReader: ~Copyable {
    public let keepsPaths: Bool
    public let limits: RequestReadingLimits
    /// Why it stopped, once it has.
    public private(set) var stopped: RequestReadingError?

    private var opening: [UInt8] = []
    private var serverBeforeOpening: [UInt8] = []
    private var http1: HTTP1Exchange?
    private var http2: HTTP2Exchange?

    /// HTTP/2's connection preface (RFC 9113 § 3.4), which an HTTP/2 client sends first.
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    public init(keepsPaths: Bool = false, limits: RequestReadingLimits = RequestReadingLimits()) {
        self.keepsPaths = keepsPaths
        self.limits = limits
    }

    /// The version read, once the phone's first bytes told it.
    public var version: ReadRequest.Version? {
        if http1 != nil { return .http1 }
        if http2 != nil { return .http2 }
        return nil
    }

    /// Reads one chunk of plaintext, and returns the requests it completed (the request ended
    /// and its final response status was read, or its stream was reset).
    public mutating func read(
        _ bytes: UnsafeRawBufferPointer, from direction: RequestDirection, at instant: Instant
    ) throws(RequestReadingError) -> [ReadRequest] {
        guard stopped == nil else { return [] }
        do {
            return try readOrThrow(bytes, from: direction, at: instant)
        } catch let error as RequestReadingError {
            stopped = error
            throw error
        } catch {
            stopped = .headerCompression(reason: "\(error)")
            throw .headerCompression(reason: "\(error)")
        }
    }

    /// The same, for bytes in an array.
    public mutating func read(_ bytes: [UInt8], from direction: RequestDirection, at instant: Instant) throws(RequestReadingError) -> [ReadRequest] {
        var result: Result<[ReadRequest], RequestReadingError> = .success([])
        bytes.withUnsafeBytes { buffer in
            do throws(RequestReadingError) {
                result = .success(try read(buffer, from: direction, at: instant))
            } catch {
                result = .failure(error)
            }
        }
        return try result.get()
    }

    /// The connection ended: every request still open, in the order it began, with what was
    /// read of it (no status when none came).
    public mutating func finish() -> [ReadRequest] {
        if http1 != nil { return http1!.finish() }
        if http2 != nil { return http2!.finish() }
        return []
    }

    private mutating func readOrThrow(_ bytes: UnsafeRawBufferPointer, from direction: RequestDirection, at instant: Instant) throws -> [ReadRequest] {
        if http1 != nil { return try http1!.read(bytes, from: direction, at: instant) }
        if http2 != nil { return try http2!.read(bytes, from: direction, at: instant) }
        // Undecided: the phone speaks first; what the server sent before is held until then.
        guard direction == .fromPhone else {
            guard serverBeforeOpening.count + bytes.count <= limits.heldBytes else { throw RequestReadingError.beyondBound(.heldUnit, limit: limits.heldBytes) }
            serverBeforeOpening.append(contentsOf: bytes)
            return []
        }
        opening.append(contentsOf: bytes)
        let compared = min(opening.count, Self.preface.count)
        if opening.prefix(compared).elementsEqual(Self.preface.prefix(compared)) {
            guard opening.count >= Self.preface.count else { return [] }
            http2 = try HTTP2Exchange(keepsPaths: keepsPaths, limits: limits)
        } else {
            http1 = HTTP1Exchange(keepsPaths: keepsPaths, limits: limits)
        }
        let first = opening, early = serverBeforeOpening
        opening = []
        serverBeforeOpening = []
        var read = try first.withUnsafeBytes { try readOrThrow($0, from: .fromPhone, at: instant) }
        read += try early.withUnsafeBytes { try readOrThrow($0, from: .fromServer, at: instant) }
        return read
    }
}
