import COpenSSL
import Foundation
import Testing
@testable import TunnelVisionRelay

@Suite struct CertificateAuthorityTests {
    static func temporaryFiles() -> CertificateAuthorityFiles {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("relay-ca-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        return CertificateAuthorityFiles(
            keyPath: directory.appendingPathComponent("ca.key").path, certificatePath: directory.appendingPathComponent("ca.pem").path)
    }

    static func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int) ?? -1
    }

    @Test func aCAIsMadeOnFirstStartWithTheKeyForTheDaemonAlone() throws {
        let files = Self.temporaryFiles()
        let made = try CertificateAuthority.loadOrCreate(files)
        #expect(Self.mode(files.keyPath) == 0o600)
        #expect(Self.mode(files.certificatePath) == 0o640)
        #expect(made.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(made.fingerprint.count == 64)
        let loaded = try CertificateAuthority.loadOrCreate(files)
        #expect(loaded.fingerprint == made.fingerprint)
        // A CA constraint, P-256, self-signed.
        #expect(X509_check_ca(loaded.certificate) == 1)
        #expect(EVP_PKEY_get_bits(X509_get0_pubkey(loaded.certificate)) == 256)
        #expect(X509_verify(loaded.certificate, X509_get0_pubkey(loaded.certificate)) == 1)
    }

    @Test func aKeyOthersCanReadIsRefused() throws {
        let files = Self.temporaryFiles()
        _ = try CertificateAuthority.create(files)
        chmod(files.keyPath, 0o640)
        #expect(throws: RelayError.certificateAuthorityKeyExposed(path: files.keyPath, mode: 0o640)) {
            try CertificateAuthority.load(files)
        }
    }

    @Test func halfACAIsNeitherUsedNorOverwritten() throws {
        let files = Self.temporaryFiles()
        _ = try CertificateAuthority.create(files)
        let key = try Data(contentsOf: URL(fileURLWithPath: files.keyPath))
        try FileManager.default.removeItem(atPath: files.certificatePath)
        #expect(throws: RelayError.certificateAuthorityHalfPresent(present: files.keyPath, missing: files.certificatePath)) {
            try CertificateAuthority.loadOrCreate(files)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: files.keyPath)) == key)
    }

    @Test func aKeyOfAnotherCAIsRefused() throws {
        let first = Self.temporaryFiles(), second = Self.temporaryFiles()
        _ = try CertificateAuthority.create(first)
        _ = try CertificateAuthority.create(second)
        let mixed = CertificateAuthorityFiles(keyPath: second.keyPath, certificatePath: first.certificatePath)
        #expect(throws: RelayError.certificateAuthorityMismatch(keyPath: second.keyPath, certificatePath: first.certificatePath)) {
            try CertificateAuthority.load(mixed)
        }
    }

    @Test func regeneratingMakesANewCA() throws {
        let files = Self.temporaryFiles()
        let old = try CertificateAuthority.create(files)
        let new = try CertificateAuthority.create(files)
        #expect(old.fingerprint != new.fingerprint)
        #expect(try CertificateAuthority.load(files).fingerprint == new.fingerprint)
    }

    @Test func aNameLongerThanACommonNameIsMintedInTheSANAlone() throws {
        let authority = try CertificateAuthority.create(Self.temporaryFiles())
        let minter = try LeafMinter(authority: authority, cacheEntries: 2)
        // 120 bytes: two 63-byte labels would exceed it, so labels of 39 and the suffix.
        let name = String(repeating: "a", count: 39) + "." + String(repeating: "b", count: 39) + "." + String(repeating: "c", count: 36) + ".lab"
        #expect(name.utf8.count == 120)
        let leaf = try minter.leaf(for: name, now: Int(Date().timeIntervalSince1970))
        #expect(X509_verify(leaf.certificate, X509_get0_pubkey(authority.certificate)) == 1)
        #expect(X509_check_host(leaf.certificate, name, name.utf8.count, 0, nil) == 1)
        #expect(X509_NAME_entry_count(X509_get_subject_name(leaf.certificate)) == 0)
        // A chain check as a client makes it: the empty subject needs the SAN to be critical.
        let store = X509_STORE_new(), context = X509_STORE_CTX_new()
        defer { X509_STORE_CTX_free(context); X509_STORE_free(store) }
        #expect(X509_STORE_add_cert(store, authority.certificate) == 1)
        #expect(X509_STORE_CTX_init(context, store, leaf.certificate, nil) == 1)
        #expect(X509_verify_cert(context) == 1)
        let longest = (0..<3).map { _ in String(repeating: "d", count: 63) }.joined(separator: ".") + "." + String(repeating: "e", count: 61)
        #expect(longest.utf8.count == 253)
        #expect(X509_check_host(try minter.leaf(for: longest, now: 0).certificate, longest, 253, 0, nil) == 1)
    }

    @Test func aLeafNamesTheSNIIsForServersAndLivesAtMost398Days() throws {
        let authority = try CertificateAuthority.create(Self.temporaryFiles())
        let minter = try LeafMinter(authority: authority, cacheEntries: 2)
        let now = Int(Date().timeIntervalSince1970)
        let leaf = try minter.leaf(for: "api.example.com", now: now)
        #expect(X509_verify(leaf.certificate, X509_get0_pubkey(authority.certificate)) == 1)
        #expect(X509_check_host(leaf.certificate, "api.example.com", 15, 0, nil) == 1)
        #expect(X509_check_host(leaf.certificate, "other.example.com", 17, 0, nil) != 1)
        #expect(X509_check_purpose(leaf.certificate, X509_PURPOSE_SSL_SERVER, 0) == 1)
        #expect(X509_check_ca(leaf.certificate) == 0)
        var days: Int32 = 0, seconds: Int32 = 0
        #expect(ASN1_TIME_diff(&days, &seconds, X509_get0_notBefore(leaf.certificate), X509_get0_notAfter(leaf.certificate)) == 1)
        #expect(days <= 398 && days >= 390)
        var nowTime = time_t(now)
        #expect(X509_cmp_time(X509_get0_notBefore(leaf.certificate), &nowTime) < 0)
    }

    @Test func leavesAreCachedPerNameBoundedAndShareOneKey() throws {
        let authority = try CertificateAuthority.create(Self.temporaryFiles())
        let minter = try LeafMinter(authority: authority, cacheEntries: 2)
        let now = Int(Date().timeIntervalSince1970)
        let first = try minter.leaf(for: "a.example", now: now)
        #expect(try minter.leaf(for: "a.example", now: now) === first)
        _ = try minter.leaf(for: "b.example", now: now)
        _ = try minter.leaf(for: "c.example", now: now)
        #expect(minter.minted == 3)
        // a.example was the least recently used: it is minted again.
        #expect(try minter.leaf(for: "a.example", now: now) !== first)
        #expect(minter.minted == 4)
        #expect(EVP_PKEY_eq(X509_get0_pubkey(first.certificate), minter.leafKey) == 1)
    }

    @Test func aNameOutsideHostNameCharactersIsNeverMinted() throws {
        let minter = try LeafMinter(authority: try CertificateAuthority.create(Self.temporaryFiles()), cacheEntries: 2)
        #expect(throws: RelayError.self) { try minter.leaf(for: "a.example,DNS:evil.example", now: 0) }
    }
}
