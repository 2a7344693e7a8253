import Foundation
import TunnelVisionAudit
import TunnelVisionEvidence
import TunnelVisionModel

/// A closed audit session with flows that prove something in every check, and the shipped catalogue.
enum EvidenceFixture {
    static let start = Date(timeIntervalSince1970: 1_791_550_000)
    static let end = start.addingTimeInterval(600)
    static let exportedAt = start.addingTimeInterval(3_600)

    static let catalogue: RequirementCatalogue = {
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        do {
            return try RequirementCatalogueLibrary.catalogue(
                identifier: RequirementCatalogueLibrary.defaultIdentifier,
                in: repository.appendingPathComponent("Catalogues"))
        } catch {
            fatalError("the shipped catalogue does not load: \(error)")
        }
    }()

    static let project: AuditProject = {
        let patterns = (try? [DomainPattern(parsing: "*.acme.example"), DomainPattern(parsing: "acme.example")]) ?? []
        return AuditProject(
            id: 3, name: "Acme Health", bundleIdentifier: "com.acme.health", catalogueVersion: nil,
            allowlist: patterns.map { AllowlistEntry(pattern: $0, note: $0.scope == .exact ? "backend" : nil) },
            createdAt: start.addingTimeInterval(-86_400))
    }()

    static func session(endedAt: Date? = end, projectID: Int64 = 3) -> Recording {
        Recording(
            id: 7, projectID: projectID, kind: .audit(AppRelease(version: "2.4.1", build: "310")),
            environment: AuditEnvironment(deviceModel: "Pixel 8", osVersion: "Android 15", toolVersion: "0.9.0"),
            inspection: InspectionConditions(inspectionEnabled: true, caTrusted: true),
            gatewayResolvers: [IPAddress("10.77.0.1")!], startedAt: Instant(start), endedAt: endedAt.map(Instant.init), notes: "Onboarding, then login")
    }

    static let markers = [
        SessionMarker(id: 1, sessionID: 7, date: Instant(start.addingTimeInterval(60)), kind: .consentGiven),
        SessionMarker(id: 2, sessionID: 7, date: Instant(start.addingTimeInterval(90)), kind: .custom("opened \"settings\"")),
        SessionMarker(id: 9, sessionID: 8, date: Instant(start.addingTimeInterval(1)), kind: .consentGiven),
    ]

    static let phone = IPAddress("10.77.0.2") ?? IPAddress(v4: 0)

    static func flow(
        _ id: Int64, second: TimeInterval, proto: TransportProtocol = .tcp, port: UInt16 = 443,
        remote: String = "93.184.216.34", configure: (inout FlowState) -> Void = { _ in }
    ) -> StoredFlow {
        let key = FlowKey(
            proto: proto, Endpoint(address: phone, port: UInt16(40_000 + id)),
            Endpoint(address: IPAddress(remote) ?? IPAddress(v4: 1), port: port))
        var state = FlowState(
            key: key, firstSeen: Instant(start.addingTimeInterval(second)), lastSeen: Instant(start.addingTimeInterval(second + 2.5)),
            bytesOut: 1_200, bytesIn: 5_400, packetCount: 12, tlsStatus: .encrypted)
        configure(&state)
        return StoredFlow(id: id, state: state)
    }

    static let flows: [StoredFlow] = [
        // Before consent, cleartext HTTP to an unlisted host.
        flow(11, second: 10, port: 80) {
            $0.tlsStatus = .plaintext
            $0.streamOpening = .httpRequest
            $0.resolvedName = ResolvedName(name: "=cmd|' /C calc'!A0.tracker.example", otherNames: ["ads.example"])
        },
        // Inspected TLS 1.2 to the backend: pinning absent.
        flow(12, second: 70) {
            $0.tlsStatus = .inspected
            $0.sni = "api.acme.example"
            $0.streamOpening = .tlsHandshake
            $0.clientTLS = ClientTLSOffer(versionsForm: .listed, versions: [.tls13, .tls12], applicationProtocols: ["h2", "http/1.1"])
            $0.serverTLS = .negotiated(TLSNegotiation(version: .tls12, cipherSuite: CipherSuite(0xC02F), source: .upstreamConnection))
        },
        // A weak version from the ServerHello, with a certificate chain.
        flow(13, second: 80) {
            $0.sni = "legacy.acme.example"
            $0.streamOpening = .tlsHandshake
            $0.clientTLS = ClientTLSOffer(versionsForm: .upTo, versions: [.tls11])
            $0.serverTLS = .negotiated(TLSNegotiation(version: .tls10, cipherSuite: CipherSuite(0x002F)))
            $0.serverCertificates = .presented(chain: [
                CertificateSummary(subject: "CN=legacy.acme.example", issuer: "CN=Acme CA, O=\"Acme, Inc.\"", notBefore: nil,
                                   notAfter: start.addingTimeInterval(86_400 * 90), sha256: String(repeating: "0f", count: 32)),
            ], chainIsComplete: false)
        },
        // The phone refused the local CA: pinning observed.
        flow(14, second: 90) {
            $0.tlsStatus = .notInspectable
            $0.sni = "pinned.acme.example"
            $0.streamOpening = .tlsHandshake
            $0.clientTLS = ClientTLSOffer(versionsForm: .listed, versions: [TLSProtocolVersion(0x7F1C), .tls13], hasEncryptedClientHello: true)
        },
        // QUIC v1 read from the server, named by DNS only.
        flow(15, second: 95, proto: .udp) {
            $0.tlsStatus = .encrypted
            $0.quic = QUICReading(version: .v1, end: .server)
            $0.resolvedName = ResolvedName(name: "cdn.acme.example")
        },
        // DNS, unnamed, before consent.
        flow(16, second: 5, proto: .udp, port: 53, remote: "10.77.0.1") { $0.tlsStatus = .plaintext },
        // A refused handshake.
        flow(17, second: 120) {
            $0.sni = "refuses.acme.example"
            $0.streamOpening = .tlsHandshake
            $0.serverTLS = .refused(alert: 40)
        },
    ].sorted { $0.firstSeen < $1.firstSeen }

    static func bundle(exportedAt: Date = exportedAt, flows: [StoredFlow] = flows) throws -> EvidenceBundle {
        try EvidenceBundle(
            project: project, session: session(), markers: markers, flows: flows, catalogue: catalogue,
            exportedWith: "tvctl 1.0.0", exportedAt: exportedAt)
    }
}
