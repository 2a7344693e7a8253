import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionModel
import TunnelVisionStore

/// A history with one project and one closed audit session, seeded the way the daemon writes:
/// packets into rotating capture files first, then flows and packet rows in batches while the
/// session is open. Flows go to allowed, unlisted and cleartext hosts so that every export has
/// findings to cite.
public struct EvidenceSeed {
    public let databasePath: String
    public let captureDirectory: URL
    public let sessionID: Int64
    public let start: Date
    public let end: Date
    /// Every packet written, with the row of its flow: what a test replays as another version would.
    public var packets: [(flowID: Int64, packet: PacketRecord)] = []

    public struct Plan: Sendable {
        public var flows = 24
        public var packetsPerFlow = 10
        public var payloadBytes = 200
        public var rotationBytes: UInt64 = 16 * 1024
        /// Flows whose last packet is never written to a capture file.
        public var uncapturedEvery = 0
        /// Whether the first flow began before the session and the last sends after it ended.
        public var packetsOutsideSession = false
        /// The first flows each go to a host of their own outside the allowlist: one finding each.
        public var distinctHostFindings = 0
        /// When set: the relay terminated the first flow and reported its TLS secrets, and the
        /// recording was started with --keep-keys (true) or without (false).
        public var keepsKeys: Bool?
        /// Whether each finished file is sealed into the chain, as the daemon does, with a key
        /// made beside the history.
        public var sealed = false

        public init(
            flows: Int = 24, packetsPerFlow: Int = 10, payloadBytes: Int = 200, rotationBytes: UInt64 = 16 * 1024,
            uncapturedEvery: Int = 0, packetsOutsideSession: Bool = false, distinctHostFindings: Int = 0,
            keepsKeys: Bool? = nil, sealed: Bool = false
        ) {
            (self.flows, self.packetsPerFlow, self.payloadBytes, self.rotationBytes) = (flows, packetsPerFlow, payloadBytes, rotationBytes)
            (self.uncapturedEvery, self.packetsOutsideSession) = (uncapturedEvery, packetsOutsideSession)
            self.distinctHostFindings = distinctHostFindings
            self.keepsKeys = keepsKeys
            self.sealed = sealed
        }
    }

    /// The relay's facts of the first flow, with the TLS secrets it reported.
    static let relayFacts = RelayFacts(decision: .terminated, event: .closed, keyLog: ["CLIENT_RANDOM 0a0b 0c0d"])

    public static let phone = IPAddress("10.77.0.2") ?? IPAddress(v4: 0)

    public static func make(in directory: URL, plan: Plan = Plan()) throws -> EvidenceSeed {
        let captures = directory.appendingPathComponent("captures", isDirectory: true)
        try FileManager.default.createDirectory(at: captures, withIntermediateDirectories: true)
        let databasePath = directory.appendingPathComponent("history.sqlite").path
        let store = try History(path: databasePath)
        let start = Date(timeIntervalSince1970: 1_791_550_000.125)
        let project = try store.createAuditProject(
            AuditProjectDraft(
                name: "Acme Health", bundleIdentifier: "com.acme.health",
                allowlist: [AllowlistEntry(pattern: try DomainPattern(parsing: "*.acme.example"), note: "backend")]),
            at: start.addingTimeInterval(-3_600))
        let captureRun = try store.beginCaptureRun(toolVersion: "0.9.0", input: "tun:tv0", at: start.addingTimeInterval(-60))
        let session = try store.startRecording(
            RecordingDraft(
                projectID: project.id, kind: .audit(AppRelease(version: "2.4.1", build: "310")),
                environment: AuditEnvironment(deviceModel: "Pixel 8", osVersion: "Android 15", toolVersion: "0.9.0"),
                inspection: InspectionConditions(inspectionEnabled: true, caTrusted: true, keepsKeys: plan.keepsKeys == true), notes: "Onboarding"),
            at: start)
        _ = try store.addMarker(.consentGiven, toSession: session.id, at: start.addingTimeInterval(5))

        let writer = try CaptureFileWriter(
            configuration: CaptureFileConfiguration(directory: captures.path, rotationBytes: plan.rotationBytes, flushReachesStorage: false),
            highestSequenceInHistory: 0)
        let sealKey = plan.sealed ? try CaptureSealKey(besideHistory: databasePath).loadOrCreate() : nil
        func record(_ changes: [CaptureFileChange]) throws {
            for change in changes {
                switch change {
                case .opened(let file), .unhashed(let file, _): try store.recordCaptureFile(file)
                case .closed(let file, let sha256):
                    try store.recordCaptureFile(file)
                    guard let sealKey else { continue }
                    try store.appendCaptureSeal { last in
                        guard let seal = CaptureChain.seal(
                            after: last, sequence: file.sequence, fileName: URL(fileURLWithPath: file.path).lastPathComponent,
                            bytes: file.bytes, sha256: sha256, origin: .written, at: file.closedAt ?? start, key: sealKey)
                        else { throw CocoaError(.featureUnsupported) }
                        return seal
                    }
                }
            }
        }
        var upserts: [FlowUpsert] = []
        var packets: [PacketRecord] = []
        var payloadSeed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for index in 0..<plan.flows {
            let handle = FlowHandle(index + 1)
            let offset = plan.packetsOutsideSession && index == 0 ? -2.0 : Double(index) * 0.5 + 1
            let state = flowState(index: index, firstSeen: start.addingTimeInterval(offset), plan: plan)
            upserts.append(FlowUpsert(handle: handle, rowID: nil, state: state))
            for number in 0..<plan.packetsPerFlow {
                let direction: Direction = number % 2 == 0 ? .outbound : .inbound
                let instant = state.firstSeen.date.addingTimeInterval(Double(number) * 0.01)
                let bytes = packet(flow: state.key, direction: direction, payload: plan.payloadBytes, seed: &payloadSeed)
                let uncaptured = plan.uncapturedEvery > 0 && index % plan.uncapturedEvery == 0 && number == plan.packetsPerFlow - 1
                let location = uncaptured ? CaptureLocation.notCaptured : try bytes.withUnsafeBytes {
                    try writer.write($0, timestampNanoseconds: instant.nanosecondsSinceEpoch)
                }
                packets.append(PacketRecord(
                    flow: handle, timestampNanoseconds: instant.nanosecondsSinceEpoch, direction: direction,
                    wireLength: UInt32(bytes.count), location: location))
            }
        }
        try writer.flush()
        try record(writer.takeChanges())
        let rows = try store.write(
            HistoryBatch(flows: upserts, packets: packets, relayFacts: plan.keepsKeys == nil ? [] : [RelayFactsRecord(flow: 1, facts: relayFacts)]),
            captureRun: captureRun.id)
        var written = packets.compactMap { packet in rows[packet.flow].map { (flowID: $0, packet: packet) } }
        let end = start.addingTimeInterval(Double(plan.flows) * 0.5 + 30)
        _ = try store.endRecording(id: session.id, at: end)
        if plan.packetsOutsideSession, let last = upserts.last, let row = rows[last.handle] {
            let instant = end.addingTimeInterval(5)
            let bytes = packet(flow: last.state.key, direction: .inbound, payload: 40, seed: &payloadSeed)
            let location = try bytes.withUnsafeBytes { try writer.write($0, timestampNanoseconds: instant.nanosecondsSinceEpoch) }
            try writer.flush()
            var state = last.state
            state.lastSeen = Instant(instant)
            state.packetCount += 1
            let late = PacketRecord(flow: last.handle, timestampNanoseconds: instant.nanosecondsSinceEpoch,
                                    direction: .inbound, wireLength: UInt32(bytes.count), location: location)
            try store.write(
                HistoryBatch(flows: [FlowUpsert(handle: last.handle, rowID: row, state: state)], packets: [late]),
                captureRun: captureRun.id)
            written.append((flowID: row, packet: late))
        }
        try writer.close(at: end.addingTimeInterval(60))
        try record(writer.takeChanges())
        return EvidenceSeed(
            databasePath: databasePath, captureDirectory: captures, sessionID: session.id, start: start, end: end, packets: written)
    }

    /// Every third flow is cleartext HTTP to an unlisted host, every fifth TLS 1.0 to the
    /// backend, the rest TLS 1.3 to the backend.
    static func flowState(index: Int, firstSeen: Date, plan: Plan) -> FlowState {
        let remote = IPAddress(v4: 0x5DB8_0000 | UInt32(index % 65_000))
        let cleartext = index % 3 == 1
        let key = FlowKey(
            proto: .tcp, Endpoint(address: phone, port: UInt16(20_000 + index % 40_000)),
            Endpoint(address: remote, port: cleartext ? 80 : 443))
        var state = FlowState(
            key: key, firstSeen: Instant(firstSeen), lastSeen: Instant(firstSeen.addingTimeInterval(Double(plan.packetsPerFlow) * 0.01)),
            bytesOut: UInt64(plan.packetsPerFlow * plan.payloadBytes / 2), bytesIn: UInt64(plan.packetsPerFlow * plan.payloadBytes / 2),
            packetCount: UInt64(plan.packetsPerFlow), tlsStatus: cleartext ? .plaintext : .encrypted)
        if cleartext {
            state.streamOpening = .httpRequest
            state.resolvedName = ResolvedName(
                name: index < plan.distinctHostFindings ? "host\(index).unlisted.example" : "tracker\(index % 7).example")
        } else {
            state.streamOpening = .tlsHandshake
            state.sni = index < plan.distinctHostFindings ? "host\(index).unlisted.example" : "api\(index % 11).acme.example"
            state.clientTLS = ClientTLSOffer(versionsForm: .listed, versions: [.tls13, .tls12])
            let version: TLSProtocolVersion = index % 5 == 0 ? .tls10 : .tls13
            state.serverTLS = .negotiated(TLSNegotiation(version: version, cipherSuite: CipherSuite(index % 5 == 0 ? 0x002F : 0x1301)))
        }
        return state
    }

    /// A raw IPv4 packet (link type 101) with a TCP header and a payload that does not repeat.
    static func packet(flow: FlowKey, direction: Direction, payload: Int, seed: inout UInt64) -> [UInt8] {
        let (phoneEnd, remoteEnd) = flow.endpointA.address == phone ? (flow.endpointA, flow.endpointB) : (flow.endpointB, flow.endpointA)
        let (source, destination) = direction == .outbound ? (phoneEnd, remoteEnd) : (remoteEnd, phoneEnd)
        let total = 40 + payload
        var bytes: [UInt8] = [0x45, 0, UInt8(total >> 8), UInt8(total & 0xFF), 0, 0, 0x40, 0, 64, 6, 0, 0]
        bytes += source.address.bytes + destination.address.bytes
        bytes += [UInt8(source.port >> 8), UInt8(source.port & 0xFF), UInt8(destination.port >> 8), UInt8(destination.port & 0xFF)]
        bytes += [0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x18, 0xFF, 0xFF, 0, 0, 0, 0]
        bytes.reserveCapacity(total)
        for _ in 0..<payload {
            // xorshift: cheap bytes that do not repeat, so sizes and compression mean something.
            seed ^= seed << 13
            seed ^= seed >> 7
            seed ^= seed << 17
            bytes.append(UInt8(truncatingIfNeeded: seed))
        }
        return bytes
    }
}
