import COpenSSL
import Foundation

/// A minted leaf certificate; the SSL objects that use it take their own reference.
final class Leaf: @unchecked Sendable {
    let certificate: OpaquePointer
    let notAfter: Int

    init(certificate: OpaquePointer, notAfter: Int) {
        self.certificate = certificate
        self.notAfter = notAfter
    }

    deinit { X509_free(certificate) }
}

/// Leaves for SNI names, signed by the CA: one P-256 key for the whole run (a leaf is then one
/// signature, no key generation), and a bounded cache so that a host seen again costs nothing.
///
/// A leaf has SAN = the name, serverAuth, digitalSignature, and a validity both phones accept:
/// backdated a day for clocks that lag, 397 days in all (Apple's limit is 398).
final class LeafMinter {
    static let backdating = 86_400
    static let lifetime = 396 * 86_400

    let authority: CertificateAuthority
    /// EVP_PKEY, owned.
    let leafKey: OpaquePointer
    private var cache: BoundedRecency<String, Leaf>
    private(set) var minted = 0

    init(authority: CertificateAuthority, cacheEntries: Int) throws(RelayError) {
        self.authority = authority
        leafKey = try OpenSSLSupport.generateP256()
        cache = BoundedRecency(capacity: cacheEntries)
    }

    deinit { EVP_PKEY_free(leafKey) }

    /// The cached leaf for `name`, or a new one; a leaf within a day of its end is replaced.
    func leaf(for name: String, now: Int) throws(RelayError) -> Leaf {
        if let cached = cache.value(for: name), cached.notAfter - now > 86_400 { return cached }
        let leaf = try mint(name, now: now)
        cache.insert(leaf, for: name)
        return leaf
    }

    private func mint(_ name: String, now: Int) throws(RelayError) -> Leaf {
        let leaf = try Self.sign(name, key: leafKey, issuer: authority, from: now - Self.backdating, to: now - Self.backdating + Self.lifetime)
        minted += 1
        return leaf
    }

    /// The upper bound of a common name (RFC 5280's ub-common-name): a longer host name (DNS allows
    /// 253 bytes) goes in the SAN alone, which is what clients match anyway.
    static let commonNameLimit = 64

    /// A leaf for `name` (its only SAN, and its CN when it fits) with the run's key, signed by
    /// `issuer`, valid from `start` to `end`.
    static func sign(
        _ name: String, key leafKey: OpaquePointer, issuer authority: CertificateAuthority, from start: Int, to notAfter: Int
    ) throws(RelayError) -> Leaf {
        // The name came through the wire reader's host-name check; this is the guard that a
        // character with meaning in OpenSSL's extension syntax can never reach it.
        guard !name.isEmpty, name.utf8.allSatisfy({ $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
            || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { throw .openSSL(operation: "mint a leaf", reason: "\(name) is not a host name") }
        guard let certificate = X509_new() else { throw OpenSSLSupport.failure("make a leaf") }
        do throws(RelayError) {
            guard X509_set_version(certificate, 2) == 1 else { throw OpenSSLSupport.failure("set the version") }
            try OpenSSLSupport.setRandomSerial(certificate)
            try OpenSSLSupport.setValidity(certificate, from: start, to: notAfter)
            guard let subject = X509_get_subject_name(certificate) else { throw OpenSSLSupport.failure("read the subject") }
            // RFC 5280 § 4.2.1.6: with an empty subject the SAN is critical.
            let named = name.utf8.count <= Self.commonNameLimit
            if named { try OpenSSLSupport.setCommonName(name, on: subject) }
            guard X509_set_issuer_name(certificate, X509_get_subject_name(authority.certificate)) == 1,
                  X509_set_pubkey(certificate, leafKey) == 1
            else { throw OpenSSLSupport.failure("set the leaf's issuer") }
            let issuer = authority.certificate
            try OpenSSLSupport.addExtension(NID_basic_constraints, "critical,CA:FALSE", to: certificate, issuer: issuer)
            try OpenSSLSupport.addExtension(NID_key_usage, "critical,digitalSignature", to: certificate, issuer: issuer)
            try OpenSSLSupport.addExtension(NID_ext_key_usage, "serverAuth", to: certificate, issuer: issuer)
            try OpenSSLSupport.addExtension(NID_subject_alt_name, (named ? "" : "critical,") + "DNS:" + name, to: certificate, issuer: issuer)
            try OpenSSLSupport.addExtension(NID_authority_key_identifier, "keyid:always", to: certificate, issuer: issuer)
            guard X509_sign(certificate, authority.key, EVP_sha256()) > 0 else { throw OpenSSLSupport.failure("sign a leaf") }
        } catch {
            X509_free(certificate)
            throw error
        }
        return Leaf(certificate: certificate, notAfter: notAfter)
    }
}
