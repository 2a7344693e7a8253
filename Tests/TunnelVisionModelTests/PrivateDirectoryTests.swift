import Testing
import TunnelVisionModel

@Suite struct PrivateDirectoryTests {
    static let directory: UInt32 = 0o040000

    @Test func theDaemonsOwnDirectoryThatOnlyItWritesIsAccepted() {
        #expect(PrivateDirectory.problem(fileMode: Self.directory | 0o750, owner: 998, expectedOwner: 998) == nil)
        #expect(PrivateDirectory.problem(fileMode: Self.directory | 0o2700, owner: 0, expectedOwner: 0) == nil)
    }

    @Test func aDirectoryOfAnotherUserIsRefusedWhateverItsMode() {
        #expect(PrivateDirectory.problem(fileMode: Self.directory | 0o700, owner: 1001, expectedOwner: 998)
            == .ownedBy(user: 1001, expected: 998))
    }

    @Test func aDirectoryItsGroupOrEveryoneMayWriteIsRefused() {
        #expect(PrivateDirectory.problem(fileMode: Self.directory | 0o2770, owner: 998, expectedOwner: 998) == .writableByOthers(mode: 0o2770))
        #expect(PrivateDirectory.problem(fileMode: Self.directory | 0o1757, owner: 998, expectedOwner: 998) == .writableByOthers(mode: 0o1757))
    }

    @Test func aLinkOrAFileIsNotADirectory() {
        #expect(PrivateDirectory.problem(fileMode: 0o120777, owner: 998, expectedOwner: 998) == .notADirectory)
        #expect(PrivateDirectory.problem(fileMode: 0o100600, owner: 998, expectedOwner: 998) == .notADirectory)
    }
}
