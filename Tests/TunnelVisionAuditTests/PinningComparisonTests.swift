import Foundation
import Testing
import TunnelVisionAudit
import TunnelVisionModel

@Suite("Pinning changes per host in a release diff")
struct PinningComparisonTests {
    static func session(id: Int64, release: String, startedAt: Double, store: CATrustStore) -> Recording {
        Recording(
            id: id, projectID: 1, kind: .audit(AppRelease(version: release, build: "310")),
            environment: AuditEnvironment(deviceModel: "Pixel 8", osVersion: "Android 15", toolVersion: "1.0"),
            inspection: InspectionConditions(mode: .pinning, caTrusted: true, caStore: store),
            startedAt: Fixture.at(startedAt), endedAt: Fixture.at(startedAt + 3600), notes: "")
    }

    static func refused(_ id: Int64, _ host: String) -> StoredFlow { Fixture.flow(id, status: .notInspectable, sni: host) }
    static func accepted(_ id: Int64, _ host: String) -> StoredFlow { Fixture.flow(id, status: .inspected, sni: host) }

    static func diff(earlier: [StoredFlow], later: [StoredFlow], laterStore: CATrustStore = .user) throws -> ReleaseDiff {
        try ReleaseDiff(
            between: session(id: 10, release: "2.4.0", startedAt: 0, store: .user), flows: earlier,
            and: session(id: 11, release: "2.5.0", startedAt: 7200, store: laterStore), flows: later, project: Fixture.project())
    }

    @Test("A refusal told apart in one recording and not in the other is a change")
    func toldApartThenNot() throws {
        let diff = try Self.diff(
            earlier: [Self.accepted(1, "cdn.example.net"), Self.refused(2, "api.example.com")],
            later: [Self.refused(3, "api.example.com")], laterStore: .system)
        let api = try #require(diff.domains.first { $0.host == "api.example.com" })
        #expect(api.pinning == .changed(earlier: .pinningObserved, later: .refusalNotToldApart(.system)))
        #expect(diff.domainsWithPinningChange.map(\.host) == ["api.example.com"])
    }

    @Test("The same statement in both is no change; a host one recording stated nothing of is not compared")
    func sameAndNotCompared() throws {
        let diff = try Self.diff(
            earlier: [Self.accepted(1, "cdn.example.net"), Self.refused(2, "api.example.com")],
            later: [Self.accepted(3, "cdn.example.net"), Self.refused(4, "api.example.com"), Self.accepted(5, "new.example.org")])
        #expect(diff.domains.first { $0.host == "api.example.com" }?.pinning == .same(.pinningObserved))
        #expect(diff.domains.first { $0.host == "cdn.example.net" }?.pinning == .same(.accepted))
        #expect(diff.domains.first { $0.host == "new.example.org" }?.pinning == .notCompared)
        #expect(diff.domainsWithPinningChange.isEmpty)
    }

    @Test("An acceptance of the host outweighs its refusals, as the contrary finding does")
    func acceptanceOutweighs() throws {
        let diff = try Self.diff(
            earlier: [Self.refused(1, "api.example.com")],
            later: [Self.refused(2, "api.example.com"), Self.accepted(3, "api.example.com")])
        #expect(diff.domains.first { $0.host == "api.example.com" }?.pinning
            == .changed(earlier: .refusalNotToldApart(.user), later: .accepted))
    }
}
