import Foundation
import TunnelVisionAudit
import TunnelVisionModel

/// The documents a closed session is exported as. Pure: it reads no history, no clock and no
/// disk. The capture, which does not fit in memory, is written apart (EvidenceCaptureWriter).
public struct EvidenceBundle: Sendable, Hashable {
    /// What the documents were built from.
    public let assessment: SessionAssessment
    public let session: EvidenceSessionDocument
    public let flows: EvidenceFlowsDocument
    public let findings: EvidenceFindingsDocument
    public let identifiers: EvidenceFindingIdentifiers
    /// Per host and version, the negotiated TLS versions read: what the report tabulates.
    public let tlsReadings: [EvidenceTLSReading]
    public let sessionID: Int64
    public let sessionStart: Instant
    public let sessionEnd: Instant
    public let exportedAt: Date
    /// What the inspection relay kept of the session's flows, by flow id.
    public let relayFacts: [Int64: RelayFacts]
    /// What the relay did, per host, event and upstream verification: what the report tabulates.
    public let relayEvents: [EvidenceRelayEvent]
    private let flowIDSet: Set<Int64>

    /// Classifies the session from all of its flows, in the history's order.
    public init(
        project: AuditProject, session: Recording, markers: [SessionMarker],
        flows: [StoredFlow], catalogue: RequirementCatalogue,
        exportedWith: String, exportedAt: Date, relayFacts: [Int64: RelayFacts] = [:],
        keyLog: EvidenceKeyLog = EvidenceKeyLog(included: false, flows: 0), signature: EvidenceSignatureNote = .unsigned,
        timestamp: EvidenceTimestampNote = .none
    ) throws(EvidenceBundleError) {
        guard session.projectID == project.id else {
            throw .sessionOfAnotherProject(sessionProjectID: session.projectID, projectID: project.id)
        }
        guard let endedAt = session.endedAt else { throw .sessionStillOpen }
        var seen = Set<Int64>()
        for flow in flows where !seen.insert(flow.id).inserted { throw .duplicateFlow(id: flow.id) }
        flowIDSet = seen
        let ownMarkers = markers.filter { $0.sessionID == session.id }

        assessment = SessionAssessment(
            catalogue: catalogue, flows: flows, project: project, session: session, markers: ownMarkers)
        identifiers = EvidenceFindingIdentifiers(assessment.findings.findings)
        tlsReadings = EvidenceTLSReading.readings(of: flows)
        sessionID = session.id
        sessionStart = session.startedAt
        sessionEnd = endedAt
        self.exportedAt = exportedAt
        self.session = EvidenceSessionDocument(
            project: project, session: session, endedAt: endedAt, markers: ownMarkers,
            catalogue: catalogue.identifier, exportedWith: exportedWith, exportedAt: exportedAt, keyLog: keyLog,
            signature: signature, timestamp: timestamp)
        self.relayFacts = relayFacts
        relayEvents = EvidenceRelayEvent.events(of: flows, facts: relayFacts)
        let identifiers = identifiers
        self.flows = EvidenceFlowsDocument(
            sessionID: session.id,
            flows: flows.map { EvidenceFlow($0, findingIDs: identifiers.ids(ofFlow: $0.id), relay: relayFacts[$0.id]) })
        findings = EvidenceFindingsDocument(sessionID: session.id, assessment: assessment, identifiers: identifiers)
    }

    /// The four documents, encoded: session.json, flows.json, flows.csv, findings.json.
    public func documentFiles() throws -> [EvidenceFile] {
        try documents.map { try $0.file() }
    }

    /// The four documents, each encoded only as it is written out, so that a caller writing them
    /// holds none whole: for a long session each is tens of megabytes.
    public var documents: [EvidenceDocument] {
        let flows = flows.flows
        return [
            EvidenceDocument(name: EvidenceFileName.session, json: session),
            EvidenceDocument(name: EvidenceFileName.flows, json: self.flows),
            EvidenceDocument(name: EvidenceFileName.flowsCSV) { try EvidenceFlowsCSV.write(flows, to: $0) },
            EvidenceDocument(name: EvidenceFileName.findings, json: findings),
        ]
    }

    /// Whether a flow is one of the bundle's: the capture may cite no other.
    public func contains(flowID: Int64) -> Bool {
        flowIDSet.contains(flowID)
    }

    /// Flow ids in the order of flows.json.
    public var flowIDs: [Int64] { flows.flows.map(\.id) }
}

public enum EvidenceBundleError: Error, Sendable, Hashable {
    case sessionOfAnotherProject(sessionProjectID: Int64, projectID: Int64)
    case sessionStillOpen
    case duplicateFlow(id: Int64)
}

/// Connections of one host the relay handled alike: the same event, the same upstream verification.
public struct EvidenceRelayEvent: Sendable, Hashable {
    public let host: String?
    public let decision: RelayDecisionKind
    public let event: RelayEventKind?
    /// The alert the phone refused our certificate with.
    public let alert: UInt8?
    public let upstreamVerified: Bool?
    /// What the phone was shown.
    public let presented: ShownLeafKind?
    public let connections: Int

    static func events(of flows: [StoredFlow], facts: [Int64: RelayFacts]) -> [EvidenceRelayEvent] {
        struct Key: Hashable {
            let host: String?, decision: RelayDecisionKind, event: RelayEventKind?, alert: UInt8?, verified: Bool?, presented: ShownLeafKind?
        }
        var counts: [Key: Int] = [:]
        for flow in flows {
            guard let fact = facts[flow.id] else { continue }
            let key = Key(host: flow.name?.text, decision: fact.decision, event: fact.event, alert: fact.alert, verified: fact.upstreamVerified,
                          presented: fact.presented)
            counts[key, default: 0] += 1
        }
        return counts.map { EvidenceRelayEvent(host: $0.key.host, decision: $0.key.decision, event: $0.key.event,
                                               alert: $0.key.alert, upstreamVerified: $0.key.verified,
                                               presented: $0.key.presented, connections: $0.value) }
            .sorted { $0.order < $1.order }
    }

    /// Every field takes part, so rows that differ only in their alert, verification or what was
    /// shown come out in the same order on every export (a dictionary's order changes per run).
    private var order: (String, String, String, Int, Int, String) {
        (host ?? "", decision.name, event?.name ?? "", alert.map(Int.init) ?? -1,
         upstreamVerified.map { $0 ? 1 : 0 } ?? -1, presented?.name ?? "")
    }
}
