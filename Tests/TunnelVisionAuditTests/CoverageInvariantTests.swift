import Foundation
import Testing
import TunnelVisionAudit
import TunnelVisionModel

/// SplitMix64: the same seed gives the same sessions on every run and machine.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// Random sessions drawn from every value each reading can take.
struct SessionGenerator {
    var random: SeededGenerator

    static let hosts = ["api.example.com", "cdn.example.net", "Tracker.example.org.", "ads.example.org", "x.cdn.example.net", ""]
    static let versions: [TLSProtocolVersion] = TLSProtocolVersion.published + [TLSProtocolVersion(0x7F1C)]
    static let quicVersions = [QUICVersion.v1, .v2, QUICVersion(0xFF00_001D)]

    mutating func maybe<T>(_ values: [T]) -> T? {
        Bool.random(using: &random) ? values.randomElement(using: &random) : nil
    }

    mutating func pick<T>(_ values: [T]) -> T { values.randomElement(using: &random)! }

    mutating func offer() -> ClientTLSOffer? {
        guard Bool.random(using: &random) else { return nil }
        let count = Int.random(in: 0...3, using: &random)
        let versions = (0..<count).map { _ in pick(Self.versions) }
        return ClientTLSOffer(
            versionsForm: Bool.random(using: &random) ? .listed : .upTo, versions: versions,
            hasEncryptedClientHello: Bool.random(using: &random))
    }

    mutating func answer() -> ServerTLSAnswer? {
        switch Int.random(in: 0...3, using: &random) {
        case 0: return nil
        case 1: return .refused(alert: UInt8.random(in: 40...48, using: &random))
        default:
            return .negotiated(TLSNegotiation(
                version: pick(Self.versions), cipherSuite: CipherSuite(0x1301),
                fromHelloRetryRequest: Bool.random(using: &random),
                source: Bool.random(using: &random) ? .serverHello : .upstreamConnection))
        }
    }

    mutating func flow(id: Int64) -> StoredFlow {
        let proto = pick([TransportProtocol.tcp, .tcp, .udp, .icmp])
        let port = pick([UInt16(443), 80, 53, 8443, 25])
        let dns = maybe(Self.hosts.filter { !$0.isEmpty }).map { name in
            ResolvedName(name: name, otherNames: (0..<Int.random(in: 0...2, using: &random)).map { _ in pick(Self.hosts.filter { !$0.isEmpty }) })
        }
        return Fixture.flow(
            id, proto: proto, port: port, at: Double(Int.random(in: -60...600, using: &random)),
            status: pick(TLSInspectionStatus.allCases), sni: maybe(Self.hosts), dns: dns, server: answer(),
            client: offer(), quic: maybe(Self.quicVersions).map { QUICReading(version: $0, end: pick([.client, .server])) },
            opening: maybe(StreamOpening.allCases), relay: maybe(Self.relayEvents))
    }

    static let relayEvents: [RelayVerdict] = [.refused(alert: 48), .closedAfterHandshake, .closedDuringHandshake, .relayFailed]
        + RelaySpliceReason.allCases.map(RelayVerdict.spliced)

    mutating func session() -> (flows: [StoredFlow], project: AuditProject, session: Recording, markers: [SessionMarker]) {
        let flows = (0..<Int.random(in: 0...40, using: &random)).map { flow(id: Int64($0) + 1) }
        let allowlist = ["api.example.com", "*.cdn.example.net", "ads.example.org"].filter { _ in Bool.random(using: &random) }
        let session = Fixture.session(
            release: Bool.random(using: &random) ? "2.4.1" : nil,
            caTrusted: Bool.random(using: &random), mode: pick(InspectionMode.allCases))
        let markers = (0..<Int.random(in: 0...3, using: &random)).map {
            Fixture.consent(Double(Int.random(in: 0...300, using: &random)), session: pick([7, 7, 8]), id: Int64($0) + 1)
        }
        return (flows, Fixture.project(allowing: allowlist), session, markers)
    }
}

@Suite("Coverage invariant")
struct CoverageInvariantTests {
    @Test("For every check, finding + satisfied + unassessed + not applicable = all flows, each flow once",
          arguments: 0..<4)
    func everyFlowLandsOncePerCheck(batch: Int) {
        var generator = SessionGenerator(random: SeededGenerator(seed: 0x7E57_0000 + UInt64(batch)))
        var kindsSeen: Set<FindingKind> = []
        for _ in 0..<100 {
            let drawn = generator.session()
            let result = FindingsClassifier.classify(
                flows: drawn.flows, project: drawn.project, session: drawn.session, markers: drawn.markers,
                policy: FindingsPolicy(minimumTLSVersion: .tls12)!)
            let all = drawn.flows.map(\.id).sorted()
            func places<Gap>(_ check: FindingsCheck, _ coverage: CheckCoverage<Gap>) -> [Int64] {
                result.findings(of: check).flatMap(\.flowIDs) + coverage.satisfiedFlowIDs
                    + coverage.unassessed.flatMap(\.flowIDs) + coverage.notApplicableFlowIDs
            }
            #expect(places(.encryption, result.encryption).sorted() == all)
            #expect(places(.tlsVersion, result.tlsVersion).sorted() == all)
            #expect(places(.host, result.host).sorted() == all)
            #expect(places(.pinning, result.pinning).sorted() == all)
            #expect(places(.consent, result.consent).sorted() == all)
            #expect(places(.certificateValidation, result.certificateValidation).sorted() == all)
            #expect(FindingsCheck.allCases.count == 6)
            for check in FindingsCheck.allCases {
                #expect(result.summary(of: check).totalFlows == all.count)
            }
            #expect(result.pinning.satisfiedFlowIDs.isEmpty)
            #expect(result.findings.allSatisfy { !$0.flowIDs.isEmpty })
            #expect(Set(result.findings.map(\.evidence)).count == result.findings.count)
            #expect(result.host.notApplicableFlowIDs.isEmpty)
            kindsSeen.formUnion(result.findings.map(\.kind))
        }
        // The property says nothing unless the sessions drawn reach every kind of finding.
        #expect(kindsSeen == Set(FindingKind.allCases))
    }

    @Test("Findings are in the order of their first flow, and each flow's ids in the order things happened",
          arguments: 0..<2)
    func findingsInOrderOfHappening(batch: Int) {
        var generator = SessionGenerator(random: SeededGenerator(seed: 0x0DE5_0000 + UInt64(batch)))
        for _ in 0..<100 {
            let drawn = generator.session()
            let result = FindingsClassifier.classify(
                flows: drawn.flows.shuffled(using: &generator.random), project: drawn.project, session: drawn.session,
                markers: drawn.markers, policy: FindingsPolicy(minimumTLSVersion: .tls12)!)
            let order = drawn.flows.sorted { ($0.firstSeen, $0.id) < ($1.firstSeen, $1.id) }.map(\.id)
            let position = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
            let firsts = result.findings.compactMap { $0.flowIDs.first.flatMap { position[$0] } }
            #expect(firsts == firsts.sorted())
            for finding in result.findings {
                let positions = finding.flowIDs.compactMap { position[$0] }
                #expect(positions == positions.sorted())
            }
        }
    }
}
