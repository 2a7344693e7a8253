import Foundation
import Glibc
import Testing
import TunnelVisionModel
@testable import TunnelVisionStore

/// The history's folder is the group's to write: a member could put a link where the history or
/// its journal is, and a root process would create or open what it names. Neither the daemon nor
/// tvctl follows one, and every connection refuses a schema's own functions and raw writes.
@Suite struct HistoryFileTests {
    @Test(arguments: ["history.sqlite", "history.sqlite-wal", "history.sqlite-shm"])
    func aDanglingLinkInPlaceOfTheHistoryOrAJournalIsRefusedAndNothingIsCreated(linked: String) throws {
        let database = TemporaryDatabase()
        if linked != "history.sqlite" { _ = try database.open() }
        let target = database.folder.appendingPathComponent("nologin").path
        unlink(database.folder.appendingPathComponent(linked).path)
        #expect(symlink(target, database.folder.appendingPathComponent(linked).path) == 0)
        #expect(throws: HistoryError.symbolicLink(path: database.folder.appendingPathComponent(linked).path)) { try database.open() }
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test func aLinkToARealHistoryIsRefusedToo() throws {
        let database = TemporaryDatabase()
        _ = try database.open()
        let link = database.folder.appendingPathComponent("linked.sqlite").path
        #expect(symlink(database.path, link) == 0)
        #expect(throws: HistoryError.symbolicLink(path: link)) { try History(path: link) }
    }

    @Test func everyConnectionIsDefensiveAndDistrustsTheSchema() throws {
        let store = try TemporaryDatabase().open()
        let trusted = try store.access { db in try db.statement("PRAGMA trusted_schema").firstRow { $0.int64(0) } }
        #expect(trusted == 0)
        // DEFENSIVE: even with writable_schema on, no statement may rewrite the schema.
        try store.access { db in try db.execute("PRAGMA writable_schema = ON") }
        #expect(throws: (any Error).self) {
            try store.access { db in try db.execute("UPDATE sqlite_schema SET sql = sql WHERE name = 'flows'") }
        }
    }
}
