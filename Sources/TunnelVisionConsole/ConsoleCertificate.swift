import COpenSSL
import Foundation
import TunnelVisionControl
import TunnelVisionDigest
import TunnelVisionExport

/// The console's own TLS certificate: self-signed, P-256, made at the first start with TLS on
/// and kept in the state folder (key 0600, certificate 0644). Browsers cannot check it against
/// anyone, so its SHA-256 fingerprint is said in the journal and by `tvctl console fingerprint`.
public struct ConsoleCertificate: Sendable {
    public let keyPEM: String
    public let certificatePEM: String
    public let fingerprint: String
    /// Whether it was made by this start.
    public let made: Bool

    public typealias Failure = ConsoleCertificateFault

    static let validityDays = 825

    public static func loadOrCreate(in directory: String, hostName: String) throws(Failure) -> ConsoleCertificate {
        let keyPath = ConsoleFiles.keyPath(in: directory), certificatePath = ConsoleFiles.certificatePath(in: directory)
        let manager = FileManager.default
        if manager.fileExists(atPath: keyPath), manager.fileExists(atPath: certificatePath) {
            var status = stat()
            guard stat(keyPath, &status) == 0 else { throw .unreadable(path: keyPath) }
            guard status.st_mode & 0o077 == 0 else { throw .keyExposed(path: keyPath) }
            guard let key = manager.contents(atPath: keyPath), let certificate = manager.contents(atPath: certificatePath) else {
                throw .unreadable(path: keyPath)
            }
            return try described(key: String(decoding: key, as: UTF8.self), certificate: String(decoding: certificate, as: UTF8.self), made: false, path: certificatePath)
        }
        let (key, certificate) = try make(hostName: hostName)
        try write(key, to: keyPath, mode: 0o600)
        try write(certificate, to: certificatePath, mode: 0o644)
        return try described(key: key, certificate: certificate, made: true, path: certificatePath)
    }

    private static func described(key: String, certificate: String, made: Bool, path: String) throws(Failure) -> ConsoleCertificate {
        guard let parsed = InspectionCACertificate(pem: certificate) else { throw .unreadable(path: path) }
        return ConsoleCertificate(keyPEM: key, certificatePEM: certificate, fingerprint: parsed.colonFingerprint, made: made)
    }

    /// A P-256 key and a certificate for the host's name, signed by that key.
    static func make(hostName: String) throws(Failure) -> (key: String, certificate: String) {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw .openSSL(lastError()) }
        defer { EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
              EVP_PKEY_generate(context, &generated) == 1, let key = generated
        else { throw .openSSL(lastError()) }
        defer { EVP_PKEY_free(key) }
        guard let certificate = X509_new() else { throw .openSSL(lastError()) }
        defer { X509_free(certificate) }
        var serial = [UInt8](repeating: 0, count: 16)
        guard RAND_bytes(&serial, Int32(serial.count)) == 1 else { throw .openSSL(lastError()) }
        serial[0] = serial[0] & 0x7F | 0x01
        let now = time(nil)
        guard X509_set_version(certificate, 2) == 1,
              let number = BN_bin2bn(serial, Int32(serial.count), nil) else { throw .openSSL(lastError()) }
        defer { BN_free(number) }
        let name = "TunnelVision console (\(hostName))"
        guard BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate)) != nil,
              ASN1_TIME_set(X509_getm_notBefore(certificate), now - 86_400) != nil,
              ASN1_TIME_set(X509_getm_notAfter(certificate), now + time_t(validityDays) * 86_400) != nil,
              let subject = X509_get_subject_name(certificate),
              X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_UTF8, Array(name.utf8), Int32(name.utf8.count), -1, 0) == 1,
              X509_set_issuer_name(certificate, subject) == 1, X509_set_pubkey(certificate, key) == 1
        else { throw .openSSL(lastError()) }
        let dnsName = hostName.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." } && !hostName.isEmpty ? hostName : "localhost"
        for (nid, value) in [
            (NID_basic_constraints, "critical,CA:FALSE"), (NID_key_usage, "critical,digitalSignature"),
            (NID_ext_key_usage, "serverAuth"), (NID_subject_alt_name, "DNS:\(dnsName),DNS:localhost,IP:127.0.0.1"),
        ] {
            var extensionContext = X509V3_CTX()
            tv_X509V3_set_ctx_nodb(&extensionContext)
            X509V3_set_ctx(&extensionContext, certificate, certificate, nil, nil, 0)
            guard let made = X509V3_EXT_nconf_nid(nil, &extensionContext, nid, value) else { throw .openSSL(lastError()) }
            defer { X509_EXTENSION_free(made) }
            guard X509_add_ext(certificate, made, -1) == 1 else { throw .openSSL(lastError()) }
        }
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw .openSSL(lastError()) }
        guard let keyText = pem({ PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }),
              let certificateText = pem({ PEM_write_bio_X509($0, certificate) })
        else { throw .openSSL(lastError()) }
        return (keyText, certificateText)
    }

    private static func pem(_ write: (OpaquePointer) -> Int32) -> String? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(bio)))
        let read = bytes.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32($0.count)) }
        return String(decoding: bytes.prefix(max(Int(read), 0)), as: UTF8.self)
    }

    private static func lastError() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(ERR_get_error(), &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func write(_ text: String, to path: String, mode: mode_t) throws(Failure) {
        let temporary = path + ".new"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw .notWritten(path: path, reason: String(cString: strerror(errno))) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        fchmod(descriptor, mode)
        close(descriptor)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw .notWritten(path: path, reason: String(cString: strerror(errno)))
        }
    }
}
