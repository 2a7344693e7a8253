import Foundation
import TunnelVisionModel

/// Flows, projects and sessions as the store would hand them over, built from the model's own
/// initialisers.
enum Fixture {
    static let phone = Endpoint(address: IPAddress(v4: 0x0A08_0002), port: 50_000)
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    /// An instant `seconds` after the fixture's start.
    static func at(_ seconds: Double) -> Instant { Instant(start.addingTimeInterval(seconds)) }

    static func flow(
        _ id: Int64, proto: TransportProtocol = .tcp, port: UInt16 = 443, at seconds: Double? = nil,
        status: TLSInspectionStatus? = nil, sni: String? = nil, dns: ResolvedName? = nil,
        server: ServerTLSAnswer? = nil, client: ClientTLSOffer? = nil, quic: QUICReading? = nil,
        opening: StreamOpening? = nil, relay: RelayVerdict? = nil
    ) -> StoredFlow {
        let remote = Endpoint(address: remoteAddress(id), port: port)
        let state = FlowState(
            key: FlowKey(proto: proto, phone, remote), firstSeen: at(seconds ?? Double(id)),
            tlsStatus: status ?? TLSInspectionStatus.born(proto: proto, remotePort: port), sni: sni,
            resolvedName: dns, serverTLS: server, clientTLS: client, quic: quic, streamOpening: opening, relay: relay)
        return StoredFlow(id: id, state: state)
    }

    /// The remote address `flow(id)` gives a flow: 198.51.100.id.
    static func remoteAddress(_ id: Int64) -> IPAddress {
        IPAddress(v4: 0xC633_6400 &+ UInt32(truncatingIfNeeded: id))
    }

    static func serverHello(_ version: TLSProtocolVersion, retry: Bool = false) -> ServerTLSAnswer {
        .negotiated(TLSNegotiation(
            version: version, cipherSuite: CipherSuite(0x1301), fromHelloRetryRequest: retry, source: .serverHello))
    }

    static func upstream(_ version: TLSProtocolVersion) -> ServerTLSAnswer {
        .negotiated(TLSNegotiation(version: version, cipherSuite: CipherSuite(0xC02F), source: .upstreamConnection))
    }

    static func listed(_ versions: [TLSProtocolVersion], ech: Bool = false) -> ClientTLSOffer {
        ClientTLSOffer(versionsForm: .listed, versions: versions, hasEncryptedClientHello: ech)
    }

    static func upTo(_ ceiling: TLSProtocolVersion) -> ClientTLSOffer {
        ClientTLSOffer(versionsForm: .upTo, versions: [ceiling])
    }

    static func pattern(_ text: String) -> DomainPattern {
        do { return try DomainPattern(parsing: text) } catch { fatalError("fixture pattern \(text): \(error)") }
    }

    static func project(id: Int64 = 1, allowing patterns: [String] = [], catalogue: String? = nil) -> AuditProject {
        AuditProject(
            id: id, name: "Acme Health", bundleIdentifier: "com.example.acme", catalogueVersion: catalogue,
            allowlist: patterns.map { AllowlistEntry(pattern: pattern($0), note: "note for \($0)") },
            createdAt: start)
    }

    static func session(
        id: Int64 = 7, project: Int64 = 1, release: String? = "2.4.1", startedAt: Double = 0,
        ended: Bool = true, inspection: Bool = true, caTrusted: Bool = true, mode: InspectionMode? = nil,
        gatewayResolvers: [IPAddress] = []
    ) -> Recording {
        Recording(
            id: id, projectID: project,
            kind: release.map { .audit(AppRelease(version: $0, build: "310")) } ?? .baseline,
            environment: AuditEnvironment(deviceModel: "iPhone15,2", osVersion: "18.1", toolVersion: "1.0"),
            inspection: InspectionConditions(mode: mode ?? (inspection ? .pinning : .off), caTrusted: caTrusted),
            gatewayResolvers: gatewayResolvers, startedAt: at(startedAt), endedAt: ended ? at(startedAt + 3600) : nil, notes: "")
    }

    static func consent(_ seconds: Double, session: Int64 = 7, id: Int64 = 1) -> SessionMarker {
        SessionMarker(id: id, sessionID: session, date: at(seconds), kind: .consentGiven)
    }
}
