import Foundation
import Testing
import TunnelVisionAudit
import TunnelVisionModel

/// A history hands a recording's flows over one at a time: a classification or a diff walks
/// them once, holds none of them, and states what it states from the same flows in an array.
@Suite("A recording's flows are walked once and state what the array states")
struct FlowWalkTests {
    /// Flows that prove something in every check: cleartext, an old version, an unlisted host,
    /// refusals told apart and not (the acceptance after the refusal), a QUIC flow, no name.
    static let flows: [StoredFlow] = [
        PinningToldApartTests.refused(1, "api.example.com", at: 1),
        Fixture.flow(2, port: 80, at: 2),
        Fixture.flow(3, at: 3, sni: "old.example.com", server: Fixture.serverHello(.tls10)),
        PinningToldApartTests.accepted(4, "cdn.example.net", at: 4),
        PinningToldApartTests.refused(5, "tracker.example.org", at: 5),
        Fixture.flow(6, proto: .udp, at: 6, sni: "quic.example.com", quic: QUICReading(version: .v1, end: .server)),
        PinningToldApartTests.refused(7, "api.example.com", at: 0.5),
    ]

    /// A walk that counts how often it was walked, in the order the flows happened.
    final class CountedWalk {
        var walks = 0
        let flows: [StoredFlow]
        init(_ flows: [StoredFlow]) {
            self.flows = flows.sorted { ($0.state.firstSeen, $0.id) < ($1.state.firstSeen, $1.id) }
        }

        var walk: FlowWalk {
            FlowWalk { [self] each in
                walks += 1
                flows.forEach(each)
            }
        }
    }

    @Test(arguments: [CATrustStore.user, .system])
    func aClassificationWalksOnceAndStatesWhatTheArrayStates(store: CATrustStore) {
        let session = PinningToldApartTests.session(store: store)
        let project = Fixture.project(allowing: ["*.example.com", "*.example.net"])
        let counted = CountedWalk(Self.flows)
        let walked = FindingsClassifier.classify(
            flows: counted.walk, project: project, session: session, markers: [], policy: PinningToldApartTests.policy)
        let fromArray = FindingsClassifier.classify(
            flows: Self.flows, project: project, session: session, markers: [], policy: PinningToldApartTests.policy)
        #expect(counted.walks == 1)
        #expect(walked == fromArray)
        #expect(walked.findings(of: .pinning).map(\.evidence) == [
            .pinningObserved(host: "api.example.com"), .pinningAbsent(host: "cdn.example.net"),
            .pinningObserved(host: "tracker.example.org"),
        ])
        #expect(walked.findings.map(\.flowIDs).contains([7, 1]), "a finding keeps its flows in the order they happened")
    }

    @Test func withoutAnotherHostsAcceptanceEveryRefusalIsSettledAsNotToldApart() {
        let refusals = Self.flows.filter { $0.state.tlsStatus == .notInspectable }
        let counted = CountedWalk(refusals)
        let walked = FindingsClassifier.classify(
            flows: counted.walk, project: Fixture.project(), session: PinningToldApartTests.session(store: .user), markers: [],
            policy: PinningToldApartTests.policy)
        #expect(counted.walks == 1)
        #expect(walked.findings(of: .pinning).map(\.evidence) == [
            .refusalNotToldApart(host: "api.example.com", store: .user), .refusalNotToldApart(host: "tracker.example.org", store: .user),
        ])
    }

    @Test func aDiffWalksEachSessionOnceAndComparesWhatTheArraysCompare() throws {
        let earlierFlows = Array(Self.flows.prefix(4))
        let laterFlows = Array(Self.flows.suffix(3))
        let earlier = PinningComparisonTests.session(id: 10, release: "2.4.0", startedAt: 0, store: .user)
        let later = PinningComparisonTests.session(id: 11, release: "2.5.0", startedAt: 7200, store: .system)
        let (first, second) = (CountedWalk(laterFlows), CountedWalk(earlierFlows))
        // Given later first: which one is later is decided by the start, not the order.
        let walked = try ReleaseDiff(between: later, flows: first.walk, and: earlier, flows: second.walk, project: Fixture.project())
        let fromArrays = try ReleaseDiff(between: earlier, flows: earlierFlows, and: later, flows: laterFlows, project: Fixture.project())
        #expect((first.walks, second.walks) == (1, 1))
        #expect(walked == fromArrays)
        #expect(walked.domainsWithPinningChange.map(\.host) == ["api.example.com"])
    }

    @Test func aRefusedDiffWalksNothing() {
        let session = PinningComparisonTests.session(id: 10, release: "2.4.0", startedAt: 0, store: .user)
        let counted = CountedWalk(Self.flows)
        #expect(throws: ReleaseDiff.Refusal.sameSession) {
            try ReleaseDiff(between: session, flows: counted.walk, and: session, flows: counted.walk, project: Fixture.project())
        }
        #expect(counted.walks == 0)
    }
}
