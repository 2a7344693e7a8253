import Foundation
import Glibc
import Testing
import TunnelVisionModel
@testable import TunnelVisionRelay

/// The CA's directory is checked through one descriptor before anything in it is read or
/// written: a directory someone else owns or may write, or a link in its place, is refused, and
/// nothing is written through it.
@Suite struct CADirectoryTests {
    static func folder(mode: mode_t = 0o750) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tv-ca-dir-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        chmod(folder.path, mode)
        return folder
    }

    static func files(in folder: URL) -> CertificateAuthorityFiles {
        CertificateAuthorityFiles(keyPath: folder.appendingPathComponent("ca.key").path,
                                  certificatePath: folder.appendingPathComponent("ca.pem").path)
    }

    static func entries(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    @Test func aMissingDirectoryIsMadeForTheDaemonAlone() throws {
        let parent = try Self.folder()
        let folder = parent.appendingPathComponent("ca")
        _ = try CertificateAuthority.loadOrCreate(Self.files(in: folder))
        var status = stat()
        #expect(lstat(folder.path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o750)
        #expect(status.st_uid == geteuid())
    }

    @Test func aDirectoryTheGroupMayWriteIsRefusedAndNothingIsWrittenInIt() throws {
        let folder = try Self.folder(mode: 0o770)
        #expect(throws: RelayError.certificateAuthorityDirectoryRefused(path: folder.path, problem: .writableByOthers(mode: 0o770))) {
            try CertificateAuthority.loadOrCreate(Self.files(in: folder))
        }
        #expect(Self.entries(folder).isEmpty)
    }

    @Test func aDirectoryOfAnotherUserIsRefusedAndNothingIsWrittenInIt() throws {
        let folder = try Self.folder()
        let someoneElse = CAFilesOwner(user: geteuid() + 4242)
        #expect(throws: RelayError.certificateAuthorityDirectoryRefused(
            path: folder.path, problem: .ownedBy(user: geteuid(), expected: geteuid() + 4242))) {
            try CertificateAuthority.create(Self.files(in: folder), owner: someoneElse)
        }
        #expect(Self.entries(folder).isEmpty)
    }

    @Test func aLinkInPlaceOfTheDirectoryIsRefusedEvenToAGoodDirectory() throws {
        let parent = try Self.folder()
        let real = parent.appendingPathComponent("real")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o750])
        let link = parent.appendingPathComponent("ca")
        #expect(symlink(real.path, link.path) == 0)
        #expect(throws: RelayError.certificateAuthorityDirectoryRefused(path: link.path, problem: .notADirectory)) {
            try CertificateAuthority.create(Self.files(in: link))
        }
        #expect(Self.entries(real).isEmpty)
    }

    @Test func aLinkInPlaceOfTheKeyIsNotFollowed() throws {
        let folder = try Self.folder()
        let files = Self.files(in: folder)
        _ = try CertificateAuthority.create(files)
        let elsewhere = try Self.folder()
        let real = Self.files(in: elsewhere)
        _ = try CertificateAuthority.create(real)
        try FileManager.default.removeItem(atPath: files.keyPath)
        #expect(symlink(real.keyPath, files.keyPath) == 0)
        #expect(throws: RelayError.self) { try CertificateAuthority.load(files) }
    }

    @Test func theKeyIsTheDaemonsAloneAndTheCertificateTheGroups() throws {
        let folder = try Self.folder()
        let files = Self.files(in: folder)
        _ = try CertificateAuthority.create(files)
        var key = stat(), certificate = stat()
        #expect(lstat(files.keyPath, &key) == 0 && lstat(files.certificatePath, &certificate) == 0)
        #expect(key.st_mode & 0o777 == 0o600 && certificate.st_mode & 0o777 == 0o640)
        #expect(key.st_uid == geteuid() && certificate.st_uid == geteuid())
        #expect(Self.entries(folder) == ["ca.key", "ca.pem"])
    }
}
