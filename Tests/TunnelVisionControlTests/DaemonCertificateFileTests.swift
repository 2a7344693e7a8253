import Foundation
import Glibc
import Testing
import TunnelVisionModel
@testable import TunnelVisionControl

/// `tvctl ca show | export` shows only a certificate the daemon's user alone could have put where
/// the history says it is: any member of the group can change that setting.
@Suite struct DaemonCertificateFileTests {
    static func folder(mode: mode_t) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tv-ca-show-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        chmod(folder.path, mode)
        let pem = folder.appendingPathComponent("ca.pem")
        _ = FileManager.default.createFile(atPath: pem.path, contents: Data("PEM".utf8), attributes: [.posixPermissions: 0o640])
        return folder
    }

    @Test func aFileOfTheDaemonsUserInItsOwnFolderIsRead() throws {
        let folder = try Self.folder(mode: 0o750)
        #expect(try DaemonCertificateFile.read(folder.appendingPathComponent("ca.pem").path, daemonUser: geteuid()) == Data("PEM".utf8))
    }

    @Test func aFolderTheGroupMayWriteIsRefused() throws {
        let folder = try Self.folder(mode: 0o2770)
        #expect(throws: DaemonCertificateFile.Problem.directory(.writableByOthers(mode: 0o2770))) {
            try DaemonCertificateFile.read(folder.appendingPathComponent("ca.pem").path, daemonUser: geteuid())
        }
    }

    @Test(.enabled(if: geteuid() != 0, "root owns the folder: a folder of root counts as the daemon's"))
    func aFolderOfAnotherUserIsRefused() throws {
        let folder = try Self.folder(mode: 0o750)
        #expect(throws: DaemonCertificateFile.Problem.directory(.ownedBy(user: geteuid(), expected: geteuid() + 7))) {
            try DaemonCertificateFile.read(folder.appendingPathComponent("ca.pem").path, daemonUser: geteuid() + 7)
        }
    }

    @Test func aLinkInPlaceOfTheCertificateOrItsFolderIsRefused() throws {
        let folder = try Self.folder(mode: 0o750)
        let elsewhere = try Self.folder(mode: 0o750)
        #expect(symlink(elsewhere.appendingPathComponent("ca.pem").path, folder.appendingPathComponent("linked.pem").path) == 0)
        #expect(throws: DaemonCertificateFile.Problem.notTheDaemonsFile) {
            try DaemonCertificateFile.read(folder.appendingPathComponent("linked.pem").path, daemonUser: geteuid())
        }
        let linkedFolder = folder.appendingPathComponent("ca")
        #expect(symlink(elsewhere.path, linkedFolder.path) == 0)
        #expect(throws: DaemonCertificateFile.Problem.directory(.notADirectory)) {
            try DaemonCertificateFile.read(linkedFolder.appendingPathComponent("ca.pem").path, daemonUser: geteuid())
        }
    }
}
