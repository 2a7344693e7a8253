import Foundation
import Testing
import TunnelVisionCaptureFiles
import TunnelVisionModel
@testable import TunnelVisionExport

/// The gateway's signing key and the capture seal key are taken only from a folder and files of
/// root's (or the daemon's, or the reader's own) that nobody else may write: a folder a member of
/// the group put in the key folder's place is refused, and nothing is signed or sealed with it.
struct KeyFolderTests {
    /// A history in `scratch/lib` and its two key folders beside `lib`.
    static func history(in scratch: ScratchDirectory) throws -> String {
        let lib = scratch.url.appendingPathComponent("lib", isDirectory: true)
        try FileManager.default.createDirectory(at: lib, withIntermediateDirectories: true)
        return lib.appendingPathComponent("history.sqlite").path
    }

    @Test func theKeyFoldersAreBesideTheHistorysFolderNotInIt() throws {
        #expect(GatewayKeys(besideHistory: "/var/lib/tunnelvision/history.sqlite").folder.path == "/var/lib/tunnelvision-signing")
        #expect(CaptureSealKey(besideHistory: "/var/lib/tunnelvision/history.sqlite").folder == "/var/lib/tunnelvision-seal")
    }

    @Test func aSigningKeyFolderTheGroupMayWriteIsRefusedAndNothingIsSigned() throws {
        let scratch = try ScratchDirectory()
        let keys = GatewayKeys(besideHistory: try Self.history(in: scratch))
        _ = try keys.create()
        #expect(try keys.signer() != nil)
        chmod(keys.folder.path, 0o770)
        #expect(throws: GatewayKeyError.refused(path: keys.folder.path, problem: .writableByOthers(mode: 0o770))) { try keys.signer() }
        chmod(keys.folder.path, 0o750)
        chmod(keys.privateKeyPath, 0o660)
        #expect(throws: GatewayKeyError.refused(path: keys.privateKeyPath, problem: .writableByOthers(mode: 0o660))) { try keys.signer() }
        #expect(throws: GatewayKeyError.refused(path: keys.privateKeyPath, problem: .writableByOthers(mode: 0o660))) { try keys.create() }
    }

    @Test func aLinkInPlaceOfTheSigningKeyFolderIsRefusedEvenToTheRealOne() throws {
        let scratch = try ScratchDirectory()
        let keys = GatewayKeys(besideHistory: try Self.history(in: scratch))
        _ = try keys.create()
        let moved = scratch.url.appendingPathComponent("moved").path
        #expect(rename(keys.folder.path, moved) == 0)
        #expect(symlink(moved, keys.folder.path) == 0)
        #expect(throws: GatewayKeyError.refused(path: keys.folder.path, problem: .notADirectory)) { try keys.signer() }
        #expect(throws: GatewayKeyError.refused(path: keys.folder.path, problem: .notADirectory)) { try keys.rotate() }
    }

    @Test(.enabled(if: geteuid() == 0, "only root gives a folder to another user"))
    func aSigningKeyFolderOfAnotherUserIsRefused() throws {
        let scratch = try ScratchDirectory()
        let keys = GatewayKeys(besideHistory: try Self.history(in: scratch))
        _ = try keys.create()
        let nobody: uid_t = 65_534
        #expect(chown(keys.folder.path, nobody, gid_t.max) == 0)
        #expect(throws: GatewayKeyError.refused(path: keys.folder.path, problem: .ownedBy(user: nobody, expected: 0))) { try keys.signer() }
        #expect(chown(keys.folder.path, 0, gid_t.max) == 0 && chown(keys.privateKeyPath, nobody, gid_t.max) == 0)
        #expect(throws: GatewayKeyError.refused(path: keys.privateKeyPath, problem: .ownedBy(user: nobody, expected: 0))) { try keys.signer() }
    }

    @Test(.enabled(if: geteuid() == 0, "only root gives a folder to another user"))
    func aSealFolderOfAnotherUserIsRefusedToTheDaemonAndToTheExporter() throws {
        let scratch = try ScratchDirectory()
        let history = try Self.history(in: scratch)
        let keys = CaptureSealKey(besideHistory: history)
        let made = try keys.loadOrCreate()
        #expect(try keys.trustedPublicKey() == made.publicKey)
        // The history's folder belongs to its owner (here root): a member's folder is neither.
        let member: uid_t = 65_534
        #expect(chown(keys.folder, member, gid_t.max) == 0)
        let refused = CaptureSealKey.Failure.notTheDaemons(path: keys.folder, problem: .ownedBy(user: member, expected: 0))
        #expect(throws: refused) { try keys.loadOrCreate() }
        #expect(throws: refused) { try keys.trustedPublicKey() }
        // The daemon's own user is trusted: the owner of the history's folder.
        #expect(chown((history as NSString).deletingLastPathComponent, member, gid_t.max) == 0)
        #expect(try CaptureSealKey(besideHistory: history).trustedPublicKey() == made.publicKey)
    }
}
