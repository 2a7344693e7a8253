import COpenSSL
import Foundation

/// An RFC 3161 TimeStampResp read through libcrypto's TS functions: whether the TSA granted it,
/// the digest it vouches for, its nonce and its instant; and, given the TSA's chain, whether its
/// signature holds (what `openssl ts -verify` checks).
public struct TimestampToken: Sendable, Hashable {
    public enum Failure: Error, Sendable, Hashable {
        case notAReply
        /// PKIStatus: 2 rejection, 3 waiting, 4 revocation warning, 5 revocation notification.
        case refused(status: Int)
        case notSHA256
        case noInstant
    }

    public let digest: [UInt8]
    public let nonce: UInt64?
    public let instant: Date

    public init(reply: [UInt8]) throws(Failure) {
        guard let response = Self.response(reply) else { throw .notAReply }
        defer { TS_RESP_free(response) }
        let status = ASN1_INTEGER_get(TS_STATUS_INFO_get0_status(TS_RESP_get_status_info(response)))
        guard status == 0 || status == 1 else { throw .refused(status: status) }
        guard let info = TS_RESP_get_tst_info(response), let imprint = TS_TST_INFO_get_msg_imprint(info) else { throw .notAReply }
        var object: OpaquePointer?
        X509_ALGOR_get0(&object, nil, nil, TS_MSG_IMPRINT_get_algo(imprint))
        guard let object, OBJ_obj2nid(object) == NID_sha256, let message = TS_MSG_IMPRINT_get_msg(imprint) else { throw .notSHA256 }
        digest = Array(UnsafeBufferPointer(start: ASN1_STRING_get0_data(message), count: Int(ASN1_STRING_length(message))))
        var value: UInt64 = 0
        nonce = TS_TST_INFO_get_nonce(info).flatMap { ASN1_INTEGER_get_uint64(&value, $0) == 1 ? value : nil }
        var time = tm()
        guard let generalized = TS_TST_INFO_get_time(info), ASN1_TIME_to_tm(generalized, &time) == 1 else { throw .noInstant }
        instant = Date(timeIntervalSince1970: TimeInterval(timegm(&time)))
    }

    /// Whether the reply's signature holds under `caFile`'s certificates and is over `data`'s SHA-256.
    public static func verify(reply: [UInt8], data: [UInt8], caFile: String) -> Bool {
        guard let response = response(reply) else { return false }
        defer { TS_RESP_free(response) }
        guard let context = TS_VERIFY_CTX_new() else { return false }
        defer { TS_VERIFY_CTX_free(context) }
        guard let store = X509_STORE_new() else { return false }
        guard X509_STORE_load_file(store, caFile) == 1 else {
            X509_STORE_free(store)
            return false
        }
        // The context owns the store and the imprint from here on.
        TS_VERIFY_CTX_set_store(context, store)
        let digest = sha256(data)
        guard let imprint = CRYPTO_malloc(digest.count, #fileID, #line)?.assumingMemoryBound(to: UInt8.self) else { return false }
        imprint.initialize(from: digest, count: digest.count)
        _ = TS_VERIFY_CTX_set_imprint(context, imprint, digest.count)
        _ = TS_VERIFY_CTX_set_flags(context, Int32(TS_VFY_VERSION | TS_VFY_SIGNATURE | TS_VFY_IMPRINT))
        return TS_RESP_verify_response(context, response) == 1
    }

    static func response(_ reply: [UInt8]) -> OpaquePointer? {
        reply.withUnsafeBufferPointer { buffer in
            var pointer: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_TS_RESP(nil, &pointer, buffer.count)
        }
    }

    /// A DER TimeStampReq for a SHA-256 digest, asking for the TSA's certificate in the reply.
    static func query(digest: [UInt8], nonce: UInt64) -> [UInt8]? {
        guard let request = TS_REQ_new() else { return nil }
        defer { TS_REQ_free(request) }
        guard let imprint = TS_MSG_IMPRINT_new() else { return nil }
        defer { TS_MSG_IMPRINT_free(imprint) }
        guard let algorithm = X509_ALGOR_new() else { return nil }
        defer { X509_ALGOR_free(algorithm) }
        guard let number = ASN1_INTEGER_new() else { return nil }
        defer { ASN1_INTEGER_free(number) }
        var digest = digest
        guard X509_ALGOR_set0(algorithm, OBJ_nid2obj(NID_sha256), V_ASN1_NULL, nil) == 1,
              TS_MSG_IMPRINT_set_algo(imprint, algorithm) == 1,
              TS_MSG_IMPRINT_set_msg(imprint, &digest, Int32(digest.count)) == 1,
              TS_REQ_set_version(request, 1) == 1, TS_REQ_set_msg_imprint(request, imprint) == 1,
              ASN1_INTEGER_set_uint64(number, nonce) == 1, TS_REQ_set_nonce(request, number) == 1,
              TS_REQ_set_cert_req(request, 1) == 1 else { return nil }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_TS_REQ(request, &out)
        guard length > 0, let out else { return nil }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    static func sha256(_ data: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard EVP_Digest(data, data.count, &digest, &length, EVP_sha256(), nil) == 1 else { return [] }
        return digest
    }
}
