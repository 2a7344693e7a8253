import COpenSSL
import Foundation
import TunnelVisionDigest
import TunnelVisionModel

/// Reads a TLS ≤ 1.2 Certificate message into summaries through OpenSSL's X.509 parser.
/// Nothing is validated: the chain is what the server sent, as far as it could be read.
public enum CertificateChain {
    public static let maximumMessageLength = 32 * 1024
    public static let maximumCertificates = 8
    public static let maximumNameLength = 256

    /// `body` is the message as read (maybe a prefix); `statedLength` what its header claimed.
    public static func read(
        body: UnsafeRawBufferPointer, statedLength: Int, cache: inout CertificateSummaryCache
    ) -> ServerCertificateReading? {
        var reader = ByteReader(body)
        guard let listLength = reader.u24() else { return nil }
        var complete = statedLength == body.count && listLength == reader.remaining
        var chain: [CertificateSummary] = []
        while !reader.isAtEnd {
            guard chain.count < maximumCertificates,
                  let der = reader.takeLengthPrefixed(lengthBytes: 3),
                  let summary = cache.summary(der: der)
            else {
                complete = false
                break
            }
            chain.append(summary)
        }
        guard !chain.isEmpty || complete else { return nil }
        return .presented(chain: chain, chainIsComplete: complete)
    }

    static func summary(der: UnsafeRawBufferPointer, sha256: String) -> CertificateSummary? {
        guard let base = der.baseAddress, !der.isEmpty else { return nil }
        var cursor: UnsafePointer<UInt8>? = base.assumingMemoryBound(to: UInt8.self)
        guard let certificate = d2i_X509(nil, &cursor, der.count) else { return nil }
        defer { X509_free(certificate) }
        let subject = name(X509_get_subject_name(certificate))
        let issuer = name(X509_get_issuer_name(certificate))
        return CertificateSummary(
            subject: subject.text, issuer: issuer.text,
            notBefore: date(X509_get0_notBefore(certificate)),
            notAfter: date(X509_get0_notAfter(certificate)),
            sha256: sha256,
            namesTruncated: subject.truncated || issuer.truncated
        )
    }

    /// XN_FLAG_RFC2253 (a macro Swift cannot import) spelled out, without ASN1_STRFLGS_ESC_MSB so
    /// that UTF-8 stays readable text while RFC 4514 specials and controls are escaped.
    private static let rfc4514Flags: UInt = {
        let escape2253: UInt = 0x1, escapeControl: UInt = 0x2, utf8Convert: UInt = 0x10
        let dumpUnknown: UInt = 0x100, dumpDER: UInt = 0x200
        let separatorCommaPlus: UInt = 1 << 16, reversed: UInt = 1 << 20, dumpUnknownFields: UInt = 1 << 24
        return escape2253 | escapeControl | utf8Convert | dumpUnknown | dumpDER
            | separatorCommaPlus | reversed | dumpUnknownFields
    }()

    /// RFC 2253/4514 text with OpenSSL's escaping, cut at the bound.
    private static func name(_ name: OpaquePointer?) -> (text: String, truncated: Bool) {
        guard let name, let bio = BIO_new(BIO_s_mem()) else { return ("", false) }
        defer { BIO_free(bio) }
        guard X509_NAME_print_ex(bio, name, 0, rfc4514Flags) >= 0 else { return ("", false) }
        var bytes = [UInt8](repeating: 0, count: maximumNameLength + 1)
        let count = bytes.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32($0.count)) }
        guard count > 0 else { return ("", false) }
        let truncated = Int(count) > maximumNameLength
        var kept = Array(bytes[0..<min(Int(count), maximumNameLength)])
        // Never cut inside a UTF-8 sequence.
        while truncated, let last = kept.last, last & 0xC0 == 0x80 { kept.removeLast() }
        if truncated, let last = kept.last, last & 0xC0 == 0xC0 { kept.removeLast() }
        return (String(decoding: kept, as: UTF8.self), truncated)
    }

    private static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

}

/// Summaries of certificates already read, by the SHA-256 of their DER: a phone meets the same
/// servers' chains again and again, and OpenSSL 3's d2i_X509 costs far more than the digest.
public struct CertificateSummaryCache: Sendable {
    public static let capacity = 256
    private var summaries: [String: CertificateSummary] = [:]

    public init() {}

    mutating func summary(der: UnsafeRawBufferPointer) -> CertificateSummary? {
        let digest = SHA256Hasher.hex(of: der)
        if let known = summaries[digest] { return known }
        guard let summary = CertificateChain.summary(der: der, sha256: digest) else { return nil }
        // Bounded the simple way: a full cache starts over.
        if summaries.count >= Self.capacity { summaries.removeAll(keepingCapacity: true) }
        summaries[digest] = summary
        return summary
    }
}
