import Testing
import TunnelVisionAudit
import TunnelVisionModel

/// One row of the table "Which two sessions" a release diff compares.
struct SessionPairRow: Sendable, CustomTestStringConvertible {
    let row: String
    let first: Recording
    let second: Recording
    let projectID: Int64
    let expected: ReleaseDiff.Refusal?
    var testDescription: String { row }
}

/// One row of "What the domain of a flow is".
struct DomainLandingRow: Sendable, CustomTestStringConvertible {
    let row: String
    let flow: StoredFlow
    let flowDomains: [String]
    let candidateDomains: [String]
    let unnamed: Bool
    var testDescription: String { row }
}

/// One row of "What is stated about a domain".
struct DomainStatusRow: Sendable, CustomTestStringConvertible {
    let row: String
    let earlier: [StoredFlow]
    let later: [StoredFlow]
    let expected: DomainStatus
    var testDescription: String { row }
}

@Suite("Release diff")
struct ReleaseDiffTests {
    static let earlier = Fixture.session(id: 10, release: "2.4.0", startedAt: 0)
    static let later = Fixture.session(id: 11, release: "2.5.0", startedAt: 7200)

    static let pairs: [SessionPairRow] = [
        SessionPairRow(row: "the same session twice → sameSession", first: earlier, second: earlier, projectID: 1, expected: .sameSession),
        SessionPairRow(
            row: "of different projects → differentProjects",
            first: earlier, second: Fixture.session(id: 11, project: 2), projectID: 1, expected: .differentProjects),
        SessionPairRow(
            row: "of a project that is not the one given → notTheSessionsProject",
            first: earlier, second: later, projectID: 2, expected: .notTheSessionsProject),
        SessionPairRow(
            row: "either is a baseline → baseline(sessionID:)",
            first: earlier, second: Fixture.session(id: 12, release: nil), projectID: 1, expected: .baseline(sessionID: 12)),
        SessionPairRow(
            row: "either is still open → stillOpen(sessionID:)",
            first: Fixture.session(id: 13, ended: false), second: later, projectID: 1, expected: .stillOpen(sessionID: 13)),
        SessionPairRow(row: "anything else → a diff", first: earlier, second: later, projectID: 1, expected: nil),
        SessionPairRow(
            row: "the same open baseline twice → sameSession, the first that fails",
            first: Fixture.session(id: 14, release: nil, ended: false), second: Fixture.session(id: 14, release: nil, ended: false),
            projectID: 1, expected: .sameSession),
        SessionPairRow(
            row: "another project's open baseline → differentProjects before baseline and stillOpen",
            first: earlier, second: Fixture.session(id: 15, project: 2, release: nil, ended: false),
            projectID: 1, expected: .differentProjects),
        SessionPairRow(
            row: "an open baseline → baseline before stillOpen",
            first: Fixture.session(id: 16, ended: false), second: Fixture.session(id: 17, release: nil),
            projectID: 1, expected: .baseline(sessionID: 17)),
    ]

    @Test(arguments: pairs)
    func whichTwoSessions(_ row: SessionPairRow) {
        let project = Fixture.project(id: row.projectID)
        do {
            let diff = try ReleaseDiff(between: row.first, flows: [], and: row.second, flows: [], project: project)
            #expect(row.expected == nil, "compared although \(String(describing: row.expected))")
            #expect(diff.earlier == row.first && diff.later == row.second)
        } catch {
            #expect(error == row.expected)
        }
    }

    @Test("Later is the later start whatever the argument order or release text; a tie goes to the larger id")
    func laterIsDecidedByStart() throws {
        let project = Fixture.project()
        let old = Fixture.session(id: 20, release: "9.9", startedAt: 0)
        let new = Fixture.session(id: 21, release: "1.0", startedAt: 100)
        let reversed = try ReleaseDiff(between: new, flows: [], and: old, flows: [], project: project)
        #expect(reversed.earlier.id == 20 && reversed.later.id == 21)
        let tieSmall = Fixture.session(id: 30, startedAt: 50)
        let tieLarge = Fixture.session(id: 31, startedAt: 50)
        let tie = try ReleaseDiff(between: tieLarge, flows: [], and: tieSmall, flows: [], project: project)
        #expect(tie.earlier.id == 30 && tie.later.id == 31)
        let sameBuild = try ReleaseDiff(between: Fixture.session(id: 40), flows: [], and: Fixture.session(id: 41), flows: [], project: project)
        #expect(sameBuild.later.id == 41)
    }

    static let landings: [DomainLandingRow] = [
        DomainLandingRow(
            row: "an announced name → flowIDs of that domain, resolved names not consulted",
            flow: Fixture.flow(1, sni: "API.example.com", dns: ResolvedName(name: "cdn.example.net", otherNames: ["x.example.net"])),
            flowDomains: ["api.example.com"], candidateDomains: [], unnamed: false),
        DomainLandingRow(
            row: "a name from DNS with no other candidate → flowIDs of that domain",
            flow: Fixture.flow(2, dns: ResolvedName(name: "cdn.example.net.")),
            flowDomains: ["cdn.example.net"], candidateDomains: [], unnamed: false),
        DomainLandingRow(
            row: "a DNS name whose other candidates are the same name once normalised → flowIDs",
            flow: Fixture.flow(3, dns: ResolvedName(name: "cdn.example.net", otherNames: ["CDN.example.net."])),
            flowDomains: ["cdn.example.net"], candidateDomains: [], unnamed: false),
        DomainLandingRow(
            row: "a name from DNS whose address had other names → candidateFlowIDs of every one, the attributed included",
            flow: Fixture.flow(4, dns: ResolvedName(name: "cdn.example.net", otherNames: ["ads.example.org", "x.example.net"])),
            flowDomains: [], candidateDomains: ["cdn.example.net", "ads.example.org", "x.example.net"], unnamed: false),
        DomainLandingRow(
            row: "no name → unnamedFlowIDs",
            flow: Fixture.flow(5, client: Fixture.listed([.tls13])), flowDomains: [], candidateDomains: [], unnamed: true),
    ]

    @Test(arguments: landings)
    func whereAFlowsDomainLands(_ row: DomainLandingRow) {
        let domains = SessionDomains(flows: [row.flow])
        #expect(domains.domains.filter { $0.flowIDs == [row.flow.id] }.map(\.host) == row.flowDomains)
        #expect(domains.domains.filter { $0.candidateFlowIDs == [row.flow.id] }.map(\.host) == row.candidateDomains)
        #expect(domains.unnamedFlowIDs == (row.unnamed ? [row.flow.id] : []))
        #expect(domains.domains.count == row.flowDomains.count + row.candidateDomains.count)
    }

    static let seen = Fixture.flow(1, sni: "api.example.com")
    static let candidate = Fixture.flow(2, dns: ResolvedName(name: "api.example.com", otherNames: ["other.example.com"]))

    static let statuses: [DomainStatusRow] = [
        DomainStatusRow(row: "absent, seen → new", earlier: [], later: [seen], expected: .new),
        DomainStatusRow(row: "seen, absent → gone", earlier: [seen], later: [], expected: .gone),
        DomainStatusRow(
            row: "seen, seen → inBoth with its two TLS comparisons", earlier: [seen], later: [seen],
            expected: .inBoth(app: .notCompared(.notReadInEitherSession), tunnel: .notCompared(.notReadInEitherSession))),
        DomainStatusRow(
            row: "candidate only earlier, seen later → undetermined", earlier: [candidate], later: [seen],
            expected: .undetermined(earlier: .candidateOnly, later: .seen)),
        DomainStatusRow(
            row: "seen earlier, candidate only later → undetermined", earlier: [seen], later: [candidate],
            expected: .undetermined(earlier: .seen, later: .candidateOnly)),
        DomainStatusRow(
            row: "absent earlier, candidate only later → undetermined", earlier: [], later: [candidate],
            expected: .undetermined(earlier: .absent, later: .candidateOnly)),
        DomainStatusRow(
            row: "candidate only earlier, absent later → undetermined", earlier: [candidate], later: [],
            expected: .undetermined(earlier: .candidateOnly, later: .absent)),
        DomainStatusRow(
            row: "candidate only on both sides → undetermined", earlier: [candidate], later: [candidate],
            expected: .undetermined(earlier: .candidateOnly, later: .candidateOnly)),
    ]

    @Test(arguments: statuses)
    func whatIsStatedAboutADomain(_ row: DomainStatusRow) throws {
        let diff = try ReleaseDiff(
            between: Self.earlier, flows: row.earlier, and: Self.later, flows: row.later,
            project: Fixture.project(allowing: ["api.example.com"]))
        let domain = try #require(diff.domains.first { $0.host == "api.example.com" })
        #expect(domain.status == row.expected)
    }

    @Test("Standing: the first entry that covers it, unlisted, or an empty allowlist; the headline is new and unlisted")
    func allowlistStandingAndHeadline() throws {
        let project = Fixture.project(allowing: ["*.example.com", "api.example.com"])
        let diff = try ReleaseDiff(
            between: Self.earlier, flows: [Fixture.flow(1, sni: "gone.example.org")],
            and: Self.later, flows: [Fixture.flow(2, sni: "api.example.com"), Fixture.flow(3, sni: "tracker.example.org")],
            project: project)
        #expect(diff.domains.map(\.host) == ["api.example.com", "tracker.example.org", "gone.example.org"])
        #expect(diff.domains[0].standing == .listed(project.allowlist[0]))
        #expect(diff.domains[1].standing == .unlisted)
        #expect(diff.unexpectedNewDomains.map(\.host) == ["tracker.example.org"])
        #expect(diff.newDomains.map(\.host) == ["api.example.com", "tracker.example.org"])
        #expect(diff.goneDomains.map(\.host) == ["gone.example.org"])

        let unlisted = try ReleaseDiff(
            between: Self.earlier, flows: [], and: Self.later, flows: [Fixture.flow(3, sni: "tracker.example.org")],
            project: Fixture.project())
        #expect(unlisted.domains.map(\.standing) == [.allowlistEmpty])
        #expect(unlisted.unexpectedNewDomains.isEmpty)
    }

    @Test("The later session's domains come first, each side by first appearance; unnamed flows counted per side")
    func domainOrderAndUnnamed() throws {
        let diff = try ReleaseDiff(
            between: Self.later,
            flows: [Fixture.flow(5, at: 50, sni: "b.example.com"), Fixture.flow(4, at: 40, sni: "a.example.com"), Fixture.flow(6, at: 60)],
            and: Self.earlier,
            flows: [Fixture.flow(1, sni: "z.example.com"), Fixture.flow(2, sni: "b.example.com"), Fixture.flow(3)],
            project: Fixture.project())
        #expect(diff.domains.map(\.host) == ["a.example.com", "b.example.com", "z.example.com"])
        #expect(diff.earlierUnnamedFlowIDs == [3])
        #expect(diff.laterUnnamedFlowIDs == [6])
        #expect(diff.domainsInBoth.map(\.host) == ["b.example.com"])
    }
}
