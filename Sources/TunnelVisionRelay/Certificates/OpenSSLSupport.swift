import COpenSSL

enum OpenSSLSupport {
    /// The newest error on this thread's queue as text, the queue emptied.
    static func lastError() -> String {
        var text = "no detail"
        var code = ERR_get_error()
        while code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            text = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            code = ERR_get_error()
        }
        return text
    }

    static func failure(_ operation: String) -> RelayError {
        .openSSL(operation: operation, reason: lastError())
    }

    /// All bytes a memory BIO holds.
    static func drain(_ bio: OpaquePointer) -> [UInt8] {
        let pending = Int(BIO_ctrl_pending(bio))
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = bytes.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(pending)) }
        return Array(bytes.prefix(max(Int(read), 0)))
    }

    static func pem(writing write: (OpaquePointer) -> Int32) -> [UInt8]? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { return nil }
        return drain(bio)
    }

    static func der(of certificate: OpaquePointer) -> [UInt8] {
        var pointer: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(certificate, &pointer)
        guard length > 0, let pointer else { return [] }
        defer { CRYPTO_free(pointer, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: pointer, count: Int(length)))
    }

    /// A P-256 key (see CertificateAuthority for why P-256).
    static func generateP256() throws(RelayError) -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw failure("make a key context") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
              EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
              EVP_PKEY_generate(context, &key) == 1, let key
        else { throw failure("generate a P-256 key") }
        return key
    }

    /// Adds an X509v3 extension written in OpenSSL's configuration syntax.
    static func addExtension(
        _ nid: Int32, _ value: String, to certificate: OpaquePointer, issuer: OpaquePointer
    ) throws(RelayError) {
        var context = X509V3_CTX()
        tv_X509V3_set_ctx_nodb(&context)
        X509V3_set_ctx(&context, issuer, certificate, nil, nil, 0)
        guard let extensionValue = X509V3_EXT_nconf_nid(nil, &context, nid, value) else {
            throw failure("make the certificate extension \(value)")
        }
        defer { X509_EXTENSION_free(extensionValue) }
        guard X509_add_ext(certificate, extensionValue, -1) == 1 else { throw failure("add the extension \(value)") }
    }

    /// A random positive 128-bit serial number.
    static func setRandomSerial(_ certificate: OpaquePointer) throws(RelayError) {
        var bytes = [UInt8](repeating: 0, count: 16)
        guard RAND_bytes(&bytes, Int32(bytes.count)) == 1 else { throw failure("draw a serial number") }
        bytes[0] &= 0x7F
        bytes[0] |= 0x01
        guard let number = BN_bin2bn(bytes, Int32(bytes.count), nil) else { throw failure("make a serial number") }
        defer { BN_free(number) }
        guard BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate)) != nil else {
            throw failure("set the serial number")
        }
    }

    static func setValidity(_ certificate: OpaquePointer, from start: Int, to end: Int) throws(RelayError) {
        guard ASN1_TIME_set(X509_getm_notBefore(certificate), time_t(start)) != nil,
              ASN1_TIME_set(X509_getm_notAfter(certificate), time_t(end)) != nil
        else { throw failure("set the validity") }
    }

    static func setCommonName(_ name: String, on x509Name: OpaquePointer) throws(RelayError) {
        let bytes = Array(name.utf8)
        guard X509_NAME_add_entry_by_txt(x509Name, "CN", MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0) == 1 else {
            throw failure("set the name \(name)")
        }
    }
}
