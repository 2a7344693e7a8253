import COpenSSL
import Foundation
import TunnelVisionDigest

/// The local inspection CA: its key signs the leaves the relay shows the phone.
///
/// P-256, not RSA-2048: the CA signs a leaf whenever the leaf cache misses, and an ECDSA P-256
/// signature costs some tens of microseconds where an RSA-2048 one costs about a millisecond —
/// the whole budget of a new intercepted connection. Android (since 4.x) and iOS accept
/// ECDSA P-256 roots and leaves, and every TLS 1.2/1.3 client the relay meets offers
/// ecdsa_secp256r1_sha256.
public final class CertificateAuthority: @unchecked Sendable {
    /// EVP_PKEY and X509, owned; immutable after init (OpenSSL reads them from any thread).
    let key: OpaquePointer
    let certificate: OpaquePointer
    /// Lower-case hex SHA-256 of the certificate's DER: what a session records.
    public let fingerprint: String
    public let certificatePEM: String
    public let certificateDER: [UInt8]

    /// How long a new CA is valid: the phone keeps it installed across many sessions.
    static let validityDays = 5 * 365

    private init(key: OpaquePointer, certificate: OpaquePointer) {
        self.key = key
        self.certificate = certificate
        certificateDER = OpenSSLSupport.der(of: certificate)
        fingerprint = SHA256Hasher.hex(of: certificateDER)
        let pem = OpenSSLSupport.pem { PEM_write_bio_X509($0, certificate) } ?? []
        certificatePEM = String(decoding: pem, as: UTF8.self)
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(key)
    }

    /// Loads the CA from its two files, or makes it when neither exists (the daemon's first start).
    /// The directory is the daemon's own (`CADirectory`), made 0750 when it is missing.
    public static func loadOrCreate(
        _ files: CertificateAuthorityFiles, now: Date = Date(), commonName: String? = nil, owner: CAFilesOwner = .current
    ) throws(RelayError) -> CertificateAuthority {
        let keyDirectory = try CADirectory(containing: files.keyPath, owner: owner, create: true)
        let certificateDirectory = try CADirectory(containing: files.certificatePath, owner: owner, create: true)
        let hasKey = keyDirectory.contains(keyDirectory.name(of: files.keyPath))
        let hasCertificate = certificateDirectory.contains(certificateDirectory.name(of: files.certificatePath))
        switch (hasKey, hasCertificate) {
        case (false, false): return try create(files, now: now, commonName: commonName, owner: owner)
        case (true, false): throw .certificateAuthorityHalfPresent(present: files.keyPath, missing: files.certificatePath)
        case (false, true): throw .certificateAuthorityHalfPresent(present: files.certificatePath, missing: files.keyPath)
        case (true, true): return try load(files, owner: owner)
        }
    }

    public static func load(_ files: CertificateAuthorityFiles, owner: CAFilesOwner = .current) throws(RelayError) -> CertificateAuthority {
        let keyDirectory = try CADirectory(containing: files.keyPath, owner: owner, create: false)
        let (keyPEM, keyMode) = try keyDirectory.read(keyDirectory.name(of: files.keyPath))
        guard keyMode & 0o077 == 0 else { throw .certificateAuthorityKeyExposed(path: files.keyPath, mode: keyMode & 0o777) }
        let certificateDirectory = try CADirectory(containing: files.certificatePath, owner: owner, create: false)
        let certificatePEM = try certificateDirectory.read(certificateDirectory.name(of: files.certificatePath)).bytes
        guard let key = keyPEM.withUnsafeBytes({ bytes -> OpaquePointer? in
            let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count))
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }) else { throw .certificateAuthorityUnreadable(path: files.keyPath, reason: "not a PEM private key") }
        guard let certificate = certificatePEM.withUnsafeBytes({ bytes -> OpaquePointer? in
            let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count))
            defer { BIO_free(bio) }
            return PEM_read_bio_X509(bio, nil, nil, nil)
        }) else {
            EVP_PKEY_free(key)
            throw .certificateAuthorityUnreadable(path: files.certificatePath, reason: "not a PEM certificate")
        }
        guard X509_check_private_key(certificate, key) == 1 else {
            X509_free(certificate)
            EVP_PKEY_free(key)
            _ = OpenSSLSupport.lastError()
            throw .certificateAuthorityMismatch(keyPath: files.keyPath, certificatePath: files.certificatePath)
        }
        return CertificateAuthority(key: key, certificate: certificate)
    }

    /// A CA held in memory alone, its key never written: an issuer no phone can have installed.
    static func ephemeral(now: Date, commonName: String?) throws(RelayError) -> CertificateAuthority {
        let key = try OpenSSLSupport.generateP256()
        guard let certificate = X509_new() else {
            EVP_PKEY_free(key)
            throw OpenSSLSupport.failure("make a certificate")
        }
        do {
            try sign(certificate, key: key, now: now, commonName: commonName)
        } catch {
            X509_free(certificate)
            EVP_PKEY_free(key)
            throw error
        }
        return CertificateAuthority(key: key, certificate: certificate)
    }

    /// Makes a new CA and writes it, replacing any old one (a root command: the refusal memory
    /// of a running relay must be cleared with it). The key is written 0600, the certificate 0640.
    public static func create(
        _ files: CertificateAuthorityFiles, now: Date = Date(), commonName: String? = nil, owner: CAFilesOwner = .current
    ) throws(RelayError) -> CertificateAuthority {
        let keyDirectory = try CADirectory(containing: files.keyPath, owner: owner, create: true)
        let certificateDirectory = try CADirectory(containing: files.certificatePath, owner: owner, create: true)
        let made = try ephemeral(now: now, commonName: commonName)
        guard let keyPEM = OpenSSLSupport.pem(writing: { PEM_write_bio_PrivateKey($0, made.key, nil, nil, 0, nil, nil) }) else {
            throw OpenSSLSupport.failure("write the CA key")
        }
        try keyDirectory.write(keyPEM, to: keyDirectory.name(of: files.keyPath), mode: 0o600, owner: owner)
        try certificateDirectory.write(
            Array(made.certificatePEM.utf8), to: certificateDirectory.name(of: files.certificatePath), mode: 0o640, owner: owner)
        return made
    }

    private static func sign(_ certificate: OpaquePointer, key: OpaquePointer, now: Date, commonName: String?) throws(RelayError) {
        let start = Int(now.timeIntervalSince1970)
        guard X509_set_version(certificate, 2) == 1 else { throw OpenSSLSupport.failure("set the version") }
        try OpenSSLSupport.setRandomSerial(certificate)
        try OpenSSLSupport.setValidity(certificate, from: start - 86_400, to: start + validityDays * 86_400)
        guard let name = X509_get_subject_name(certificate) else { throw OpenSSLSupport.failure("read the subject") }
        let host = ProcessInfo.processInfo.hostName
        try OpenSSLSupport.setCommonName(commonName ?? "TunnelVision inspection CA (\(host))", on: name)
        guard X509_set_issuer_name(certificate, name) == 1, X509_set_pubkey(certificate, key) == 1 else {
            throw OpenSSLSupport.failure("set the issuer")
        }
        try OpenSSLSupport.addExtension(NID_basic_constraints, "critical,CA:TRUE,pathlen:0", to: certificate, issuer: certificate)
        try OpenSSLSupport.addExtension(NID_key_usage, "critical,keyCertSign,cRLSign", to: certificate, issuer: certificate)
        try OpenSSLSupport.addExtension(NID_subject_key_identifier, "hash", to: certificate, issuer: certificate)
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw OpenSSLSupport.failure("sign the CA") }
    }
}
