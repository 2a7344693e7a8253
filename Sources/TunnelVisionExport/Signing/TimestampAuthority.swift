import CCurl
import COpenSSL
import Foundation

/// A time-stamping authority the configuration names (`timestamp_url`): asked over HTTP for an
/// RFC 3161 token over a SHA-256 digest (RFC 3161 §3.4: a DER TimeStampReq posted as
/// `application/timestamp-query`), through libcurl. The reply is kept only when the TSA granted
/// it, for that digest and our nonce; its signature is checked by whoever holds the TSA's chain
/// (`openssl ts -verify`, `tvctl verify --tsa-ca`).
public struct TimestampAuthority: Sendable, Hashable {
    public let url: String
    /// A reply is a few kilobytes; more is not one.
    static let replyLimit = 1 << 20

    /// Nil unless the text is an http:// or https:// URL.
    public init?(url: String) {
        guard url.hasPrefix("https://") || url.hasPrefix("http://"), url.count > 8,
              !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else { return nil }
        self.url = url
    }

    /// The TSA's reply for `data`, checked against what was asked.
    func stamp(_ data: [UInt8]) throws(TimestampError) -> TimestampReply {
        let digest = TimestampToken.sha256(data)
        var nonce: UInt64 = 0
        guard withUnsafeMutableBytes(of: &nonce, { RAND_bytes($0.baseAddress, 8) }) == 1,
              let query = TimestampToken.query(digest: digest, nonce: nonce & 0x7FFF_FFFF_FFFF_FFFF) else {
            throw .queryNotMade
        }
        let reply = try post(query)
        let token: TimestampToken
        do { token = try TimestampToken(reply: reply) } catch { throw .badReply(url: url, error) }
        guard token.digest == digest else { throw .otherDigest(url: url) }
        guard token.nonce == nonce & 0x7FFF_FFFF_FFFF_FFFF else { throw .otherNonce(url: url) }
        return TimestampReply(der: reply, instant: token.instant, authority: url)
    }

    private func post(_ body: [UInt8]) throws(TimestampError) -> [UInt8] {
        guard let curl = curl_easy_init() else { throw .unreachable(url: url, reason: "libcurl did not start") }
        defer { curl_easy_cleanup(curl) }
        var headers = curl_slist_append(nil, "Content-Type: application/timestamp-query")
        headers = curl_slist_append(headers, "Accept: application/timestamp-reply")
        defer { curl_slist_free_all(headers) }
        let received = ReplyBuffer()
        let context = Unmanaged.passUnretained(received).toOpaque()
        let status: CURLcode = body.withUnsafeBytes { bytes in
            _ = tv_curl_set_string(curl, CURLOPT_URL, url)
            _ = tv_curl_set_string(curl, CURLOPT_PROTOCOLS_STR, "http,https")
            _ = tv_curl_set_long(curl, CURLOPT_NOSIGNAL, 1)
            _ = tv_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT, 10)
            _ = tv_curl_set_long(curl, CURLOPT_TIMEOUT, 30)
            _ = tv_curl_set_long(curl, CURLOPT_POST, 1)
            _ = tv_curl_set_pointer(curl, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            _ = tv_curl_set_long(curl, CURLOPT_POSTFIELDSIZE, bytes.count)
            _ = tv_curl_set_slist(curl, CURLOPT_HTTPHEADER, headers)
            _ = tv_curl_set_pointer(curl, CURLOPT_WRITEDATA, context)
            _ = tv_curl_set_write(curl) { data, size, count, context in
                guard let data, let context else { return 0 }
                let buffer = Unmanaged<ReplyBuffer>.fromOpaque(context).takeUnretainedValue()
                let length = size * count
                guard buffer.bytes.count + length <= TimestampAuthority.replyLimit else { return 0 }
                data.withMemoryRebound(to: UInt8.self, capacity: length) { buffer.bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: length)) }
                return length
            }
            return curl_easy_perform(curl)
        }
        guard status == CURLE_OK else { throw .unreachable(url: url, reason: String(cString: curl_easy_strerror(status))) }
        var code = 0
        _ = tv_curl_response_code(curl, &code)
        guard code == 200 else { throw .httpStatus(url: url, code: code) }
        return received.bytes
    }

    private final class ReplyBuffer {
        var bytes: [UInt8] = []
    }
}

/// The reply an export keeps as manifest.json.tsr, and the instant the TSA vouched for.
public struct TimestampReply: Sendable, Hashable {
    public let der: [UInt8]
    public let instant: Date
    public let authority: String
}

public enum TimestampError: Error, Sendable, Hashable {
    case queryNotMade
    case unreachable(url: String, reason: String)
    case httpStatus(url: String, code: Int)
    case badReply(url: String, TimestampToken.Failure)
    /// The token is over another digest than the manifest's.
    case otherDigest(url: String)
    /// The token answers another query than ours (a replayed reply).
    case otherNonce(url: String)
}
