import Foundation
import TunnelVisionModel
import TunnelVisionStore

/// Flows written the way the daemon writes them, for tests that need traffic tvctl did not seed.
struct TrafficWriter {
    let store: History
    let captureRun: Int64
    private var nextHandle: FlowHandle = 1_000

    init(store: History, at date: Date) throws {
        self.store = store
        captureRun = try store.beginCaptureRun(toolVersion: "test", input: "test", at: date).id
    }

    /// Writes one TLS flow to the host with the negotiated version; returns its row id.
    @discardableResult
    mutating func tlsFlow(to host: String, version: TLSProtocolVersion, at date: Date, port: UInt16) throws -> Int64 {
        let key = FlowKey(
            proto: .tcp, Endpoint(address: IPAddress(v4: 0x0A4D_0002), port: port),
            Endpoint(address: IPAddress(v4: 0xC633_6400 | UInt32(port % 200)), port: 443))
        let state = FlowState(
            key: key, firstSeen: Instant(date), lastSeen: Instant(date.addingTimeInterval(1)), bytesOut: 500, bytesIn: 4_000, packetCount: 6,
            tlsStatus: .encrypted, sni: host,
            serverTLS: .negotiated(TLSNegotiation(version: version, cipherSuite: CipherSuite(0x1301))),
            clientTLS: ClientTLSOffer(versionsForm: .listed, versions: [.tls13, .tls12]), streamOpening: .tlsHandshake)
        let handle = nextHandle
        nextHandle += 1
        let rows = try store.write(HistoryBatch(flows: [FlowUpsert(handle: handle, rowID: nil, state: state)]), captureRun: captureRun)
        guard let row = rows[handle] else { throw TestFailure("the store gave the flow no row") }
        return row
    }
}

let fixtureStart = Date(timeIntervalSince1970: 1_790_845_200)  // 2026-10-01T09:00:00Z

func release(_ version: String, _ build: String) -> RecordingKind {
    .audit(AppRelease(version: version, build: build))
}

func sessionDraft(project: Int64, kind: RecordingKind) -> RecordingDraft {
    RecordingDraft(
        projectID: project, kind: kind,
        environment: AuditEnvironment(deviceModel: "Pixel 8", osVersion: "Android 15", toolVersion: TunnelVisionBuild.version),
        inspection: InspectionConditions(inspectionEnabled: false, caTrusted: false))
}
