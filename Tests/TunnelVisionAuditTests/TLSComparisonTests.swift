import Testing
import TunnelVisionAudit
import TunnelVisionModel

/// One case of "TLS changes per domain": the readings on each side and the comparison per negotiator.
struct TLSComparisonRow: Sendable, CustomTestStringConvertible {
    let row: String
    let earlier: [StoredFlow]
    let later: [StoredFlow]
    let app: TLSVersionComparison
    let tunnel: TLSVersionComparison
    var testDescription: String { row }
}

@Suite("TLS changes per domain")
struct TLSComparisonTests {
    static let host = "api.example.com"
    static let draft = TLSProtocolVersion(0x7F1C)

    static func app(_ id: Int64, _ version: TLSProtocolVersion) -> StoredFlow {
        Fixture.flow(id, sni: host, server: Fixture.serverHello(version))
    }

    static func tunnel(_ id: Int64, _ version: TLSProtocolVersion) -> StoredFlow {
        Fixture.flow(id, status: .inspected, sni: host, server: Fixture.upstream(version))
    }

    static func quic(_ id: Int64) -> StoredFlow {
        Fixture.flow(id, proto: .udp, sni: host, quic: QUICReading(version: .v1, end: .server))
    }

    static let rows: [TLSComparisonRow] = [
        TLSComparisonRow(
            row: "same versions → same", earlier: [app(1, .tls12), app(2, .tls13)], later: [app(3, .tls13), app(4, .tls12)],
            app: .same([.tls12, .tls13]), tunnel: .notCompared(.notReadInEitherSession)),
        TLSComparisonRow(
            row: "weakest older later → lowered", earlier: [app(1, .tls13)], later: [app(2, .tls12), app(3, .tls13)],
            app: .different(earlier: [.tls13], later: [.tls12, .tls13], floor: .lowered), tunnel: .notCompared(.notReadInEitherSession)),
        TLSComparisonRow(
            row: "weakest newer later → raised", earlier: [app(1, .tls10), app(2, .tls12)], later: [app(3, .tls12)],
            app: .different(earlier: [.tls10, .tls12], later: [.tls12], floor: .raised), tunnel: .notCompared(.notReadInEitherSession)),
        TLSComparisonRow(
            row: "same weakest, others changed → held", earlier: [app(1, .tls12)], later: [app(2, .tls12), quic(3)],
            app: .different(earlier: [.tls12], later: [.tls12, .tls13], floor: .held), tunnel: .notCompared(.notReadInEitherSession)),
        TLSComparisonRow(
            row: "a draft version among them → notOrdered", earlier: [app(1, .tls12)], later: [app(2, draft)],
            app: .different(earlier: [.tls12], later: [draft], floor: .notOrdered), tunnel: .notCompared(.notReadInEitherSession)),
        TLSComparisonRow(
            row: "nothing read earlier → notReadInEarlierSession", earlier: [Fixture.flow(1, sni: host)], later: [app(2, .tls13)],
            app: .notCompared(.notReadInEarlierSession), tunnel: .notCompared(.notReadInEitherSession)),
        TLSComparisonRow(
            row: "nothing read later → notReadInLaterSession", earlier: [app(1, .tls13)], later: [Fixture.flow(2, sni: host)],
            app: .notCompared(.notReadInLaterSession), tunnel: .notCompared(.notReadInEitherSession)),
        TLSComparisonRow(
            row: "the two negotiators are never compared with each other", earlier: [app(1, .tls13)], later: [tunnel(2, .tls12)],
            app: .notCompared(.notReadInLaterSession), tunnel: .notCompared(.notReadInEarlierSession)),
        TLSComparisonRow(
            row: "the tunnel's versions compared on their own", earlier: [tunnel(1, .tls13), app(2, .tls13)],
            later: [tunnel(3, .tls12), app(4, .tls13)],
            app: .same([.tls13]), tunnel: .different(earlier: [.tls13], later: [.tls12], floor: .lowered)),
        TLSComparisonRow(
            row: "a candidate flow's version does not count", earlier: [app(1, .tls13)],
            later: [Fixture.flow(2, dns: ResolvedName(name: host, otherNames: ["other.example.com"]), server: Fixture.serverHello(.tls10)),
                    app(3, .tls13)],
            app: .same([.tls13]), tunnel: .notCompared(.notReadInEitherSession)),
    ]

    @Test(arguments: rows)
    func comparison(_ row: TLSComparisonRow) throws {
        let diff = try ReleaseDiff(
            between: ReleaseDiffTests.earlier, flows: row.earlier, and: ReleaseDiffTests.later, flows: row.later,
            project: Fixture.project())
        let domain = try #require(diff.domains.first { $0.host == Self.host })
        #expect(domain.status == .inBoth(app: row.app, tunnel: row.tunnel))
        #expect(domain.hasTLSChange == (row.app.isChange || row.tunnel.isChange))
        #expect(diff.domainsWithTLSChange.contains(domain) == domain.hasTLSChange)
    }

    @Test("A domain's sightings keep where each version was read, and which flows read none")
    func sightings() throws {
        let domains = SessionDomains(flows: [Self.app(1, .tls12), Self.quic(2), Fixture.flow(3, sni: Self.host), Self.app(4, .tls12)])
        let domain = try #require(domains.domain(Self.host))
        #expect(domain.tlsSightings.map(\.observation) == [
            TLSVersionObservation(version: .tls12, basis: .serverHello(helloRetry: nil)),
            TLSVersionObservation(version: .tls13, basis: .quic(.v1)),
        ])
        #expect(domain.tlsSightings.map(\.flowIDs) == [[1, 4], [2]])
        #expect(domain.flowIDsWithoutTLSReading == [3])
    }
}
