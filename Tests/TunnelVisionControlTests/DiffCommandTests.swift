import Foundation
import Testing
import TunnelVisionModel
import TunnelVisionStore
@testable import TunnelVisionControl

/// `tvctl diff`: the fixture's release 2.4.1 against a release 2.5.0 recorded after it.
struct DiffCommandTests {
    /// Release 2.5.0 (320): the backend again, the CDN now on TLS 1.3, and a partner never seen before.
    static func twoReleases() throws -> ScratchHistory {
        let history = try ScratchHistory.seeded()
        let store = try history.open()
        let start = fixtureStart.addingTimeInterval(3600)
        let session = try store.startRecording(sessionDraft(project: 1, kind: release("2.5.0", "320")), at: start)
        var writer = try TrafficWriter(store: store, at: start)
        try writer.tlsFlow(to: "api.acme.example", version: .tls13, at: start.addingTimeInterval(5), port: 45_001)
        try writer.tlsFlow(to: "cdn.acme.example", version: .tls13, at: start.addingTimeInterval(9), port: 45_002)
        try writer.tlsFlow(to: "new.partner.example", version: .tls12, at: start.addingTimeInterval(14), port: 45_003)
        _ = try store.endRecording(id: session.id, at: start.addingTimeInterval(300))
        return history
    }

    @Test(arguments: [["diff", "2", "3"], ["diff", "3", "2"]])
    func tableIsTheSameWhicheverOrderTheSessionsAreGiven(_ arguments: [String]) throws {
        let history = try Self.twoReleases()
        let run = try TVCtlBinary.run(arguments, database: history.path)
        #expect(run.status == 0, "\(run)")
        Golden.record("diff", run.output)
        #expect(run.output == (try Golden.text("diff")))
    }

    @Test func jsonNamesTheUnexpectedNewDomainAndTheTLSChange() throws {
        let history = try Self.twoReleases()
        let run = try TVCtlBinary.run(["diff", "2", "3", "--json"], database: history.path)
        let diff = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(diff["unexpectedNewDomains"] as? [String] == ["new.partner.example"])
        #expect((diff["earlier"] as? [String: Any])?["id"] as? Int == 2)
        #expect((diff["later"] as? [String: Any])?["id"] as? Int == 3)
        let domains = try #require(diff["domains"] as? [[String: Any]])
        let cdn = try #require(domains.first { $0["host"] as? String == "cdn.acme.example" })
        #expect(cdn["status"] as? String == "inBoth")
        let app = try #require(cdn["appTLS"] as? [String: Any])
        #expect(app["comparison"] as? String == "different")
        #expect(app["earlier"] as? [String] == ["TLS 1.2"])
        #expect(app["later"] as? [String] == ["TLS 1.3"])
        #expect(app["floor"] as? String == "raised")
        let gone = domains.filter { $0["status"] as? String == "gone" }.compactMap { $0["host"] as? String }
        #expect(gone.contains("tracker.adnet.example"))
        #expect(diff["earlierUnnamedFlowIDs"] as? [Int] == [18, 20])
        #expect(diff["laterUnnamedFlowIDs"] as? [Int] == [])
    }

    /// The spec: a diff reads both sessions in one visit to the store. Between the two reads
    /// another connection deletes the later session; one read transaction still sees it as it was
    /// when the read began (two visits would find it gone).
    @Test func bothSessionsAreReadFromOneSnapshotOfTheHistory() throws {
        let history = try Self.twoReleases()
        let library = ControlLibrary(location: DatabaseLocation(path: history.path))
        var deleted = false
        let (diff, _) = try DiffCommand.read(2, 3, library: library) {
            try history.open().deleteRecording(id: 3)
            deleted = true
        }
        #expect(deleted)
        #expect(diff.earlier.id == 2)
        #expect(diff.later.id == 3)
        // Its flows are walked after the delete, in the same read: still there.
        #expect(diff.domains.filter { $0.later?.isSeen == true }.map(\.host).sorted()
            == ["api.acme.example", "cdn.acme.example", "new.partner.example"])
        // The delete did happen: a visit after it no longer finds the session.
        #expect(throws: ControlError.self) { try DiffCommand.read(2, 3, library: library) }
    }

    @Test func anOpenSessionIsRefusedAndNamed() throws {
        let history = try ScratchHistory.seeded()
        _ = try history.open().startRecording(sessionDraft(project: 1, kind: release("2.5.0", "320")), at: Date())
        let run = try TVCtlBinary.run(["diff", "2", "3"], database: history.path)
        #expect(run.status == 1)
        #expect(run.error == "tvctl: Session 3 is still recording: end it with 'tvctl session end 3' before comparing.\n")
    }

    @Test func sessionsOfTwoProjectsAreRefused() throws {
        let history = try Self.twoReleases()
        let other = try TVCtlBinary.fixture(["--name", "Other", "--at", ScratchHistory.fixtureStart], database: history.path)
        #expect(other.status == 0)
        let run = try TVCtlBinary.run(["diff", "2", "5"], database: history.path)
        #expect(run.status == 1)
        #expect(run.error == "tvctl: The two sessions belong to different projects: compare two releases of one project.\n")
    }
}
