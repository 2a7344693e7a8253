import Foundation
import TunnelVisionAudit
import TunnelVisionModel

/// findings.json: the catalogue cited, a verdict per requirement, the findings, and how far each
/// of the five checks got. It cites flows by id and no packet.
public struct EvidenceFindingsDocument: Encodable, Sendable, Hashable {
    /// A document the catalogue cites, with the keys the catalogue gives it.
    public typealias Source = CatalogueSource

    public struct TLSMinimum: Encodable, Sendable, Hashable {
        public let minimumVersion: EvidenceTLSVersion
        public let source: Source
    }

    public struct Catalogue: Encodable, Sendable, Hashable {
        public let identifier: String
        public let source: Source
        public let tls: TLSMinimum
    }

    public typealias Aspect = RequirementAspect

    public struct RequirementEntry: Encodable, Sendable, Hashable {
        public let id: String
        public let aspect: Aspect
        public let title: String
        public let testDepth: String
        public let rule: String
        public let contraryKinds: [String]
        public let supportingKinds: [String]
        public let check: String?
        /// contradicted / observedWithoutContradiction / notAssessed.
        public let verdict: String
        public let notAssessedReason: String?
        public let verdictStatement: String
        public let toolCoverage: String?
        public let contraryFindingIDs: [String]
        public let supportingFindingIDs: [String]
    }

    public struct TLSVersionEvidence: Encodable, Sendable, Hashable {
        public let version: EvidenceTLSVersion
        /// serverHello / upstreamConnection / quic.
        public let basis: String
        public let fromHelloRetryRequest: Bool?
        /// With a HelloRetryRequest: retryOnly, serverHelloAfterRetry or notToldApart.
        public let helloRetry: String?
        public let quicVersion: EvidenceCodePoint?
    }

    public struct FindingEntry: Encodable, Sendable, Hashable {
        public let id: String
        public let kind: String
        public let check: String
        public let statement: String
        public let flows: [Int64]
        public let host: String?
        public let tlsVersion: TLSVersionEvidence?
        public let cleartextProtocol: String?
        public let unnamedReason: String?
        /// With `refusalNotToldApart`: the store the CA was declared installed in (user,
        /// user-full-trust, system); absent when the recording named none.
        public let caStore: String?
        /// With `activityBeforeConsent` judged on requests: what was sent before the marker.
        public var requestsBeforeConsent: RequestsBeforeConsent?
    }

    /// The requests a consent finding rests on: how many, their bodies' bytes summed, and each.
    public struct RequestsBeforeConsent: Encodable, Sendable, Hashable {
        /// The sentence that names them ("12 requests with 48.0 kB of bodies to api.example before consent.").
        public let summary: String
        public let count: Int
        public let bodyBytes: Int64
        public let requests: [Request]
    }

    /// One request read inside a connection: facts, never content (no path, no header, no body).
    public struct Request: Encodable, Sendable, Hashable {
        public let flow: Int64
        public let sentAt: Instant
        /// HTTP/1.1 or HTTP/2.
        public let version: String
        public let method: String
        /// As the request named it (Host, :authority, or the CONNECT target); absent when it named none.
        public let authority: String?
        public let bodyBytes: Int64
        public let responseStatus: Int?
    }

    /// On what the consent check judged each flow: its read requests, or its first packet.
    public struct ConsentJudgedOn: Encodable, Sendable, Hashable {
        public let requestsRead: [Int64]
        public let connectionStart: [Int64]
    }

    /// Flows a check could not look at for one reason, with what the reason carries.
    public struct Unassessed: Encodable, Sendable, Hashable {
        public let reason: String
        public let statement: String
        public let flows: [Int64]
        public var alert: UInt8?
        public var tlsVersion: EvidenceTLSVersion?
        public var upstreamVersion: EvidenceTLSVersion?
        public var clientOffer: String?
        public var clientOfferCeiling: EvidenceTLSVersion?
        public var quicVersion: EvidenceCodePoint?
        public var attributedNameAllowed: Bool?
        /// Why the relay passed the connection through untouched (RelaySpliceReason).
        public var relayReason: String?
    }

    public struct Check: Encodable, Sendable, Hashable {
        public let findingIDs: [String]
        public let satisfied: [Int64]
        public let notApplicable: [Int64]
        public let unassessed: [Unassessed]
        /// The consent check's only: absent when no flow had requests read, so that every flow
        /// was judged on its first packet.
        public var basis: ConsentJudgedOn?
    }

    public struct Checks: Encodable, Sendable, Hashable {
        public let encryption: Check
        public let tlsVersion: Check
        public let host: Check
        public let pinning: Check
        public let consent: Check
        public let certificateValidation: Check
    }

    public let format = "tunnelvision.evidence.findings"
    public let formatVersion = 1
    public let sessionID: Int64
    public let verdicts: String
    public let catalogue: Catalogue
    public let requirements: [RequirementEntry]
    public let findings: [FindingEntry]
    public let checks: Checks

    public init(sessionID: Int64, assessment: SessionAssessment, identifiers: EvidenceFindingIdentifiers) {
        let catalogue = assessment.catalogue
        let minimum = catalogue.policy.minimumTLSVersion
        self.sessionID = sessionID
        verdicts = EvidenceWording.Note.verdicts
        self.catalogue = Catalogue(
            identifier: catalogue.identifier, source: catalogue.source,
            tls: TLSMinimum(minimumVersion: EvidenceTLSVersion(minimum), source: catalogue.tlsSource))
        requirements = assessment.requirements.map { Self.entry(of: $0, identifiers: identifiers) }
        let all = assessment.findings
        findings = all.findings.map { finding in
            var entry = Self.entry(of: finding, id: identifiers.id(of: finding), minimum: minimum)
            entry.requestsBeforeConsent = RequestsBeforeConsent(finding, in: all)
            return entry
        }
        func check<Gap: EvidenceGap>(_ kind: FindingsCheck, _ coverage: CheckCoverage<Gap>) -> Check {
            Check(
                findingIDs: all.findings(of: kind).map(identifiers.id(of:)),
                satisfied: coverage.satisfiedFlowIDs, notApplicable: coverage.notApplicableFlowIDs,
                unassessed: coverage.unassessed.map { $0.reason.unassessed(flows: $0.flowIDs) })
        }
        var consent = check(.consent, all.consent)
        if !all.consentJudgedOnRequests.isEmpty {
            consent.basis = ConsentJudgedOn(
                requestsRead: all.consentJudgedOnRequests, connectionStart: all.consentJudgedOnConnectionStart)
        }
        checks = Checks(
            encryption: check(.encryption, all.encryption), tlsVersion: check(.tlsVersion, all.tlsVersion),
            host: check(.host, all.host), pinning: check(.pinning, all.pinning), consent: consent,
            certificateValidation: check(.certificateValidation, all.certificateValidation))
    }

    private static func entry(of assessment: RequirementAssessment, identifiers: EvidenceFindingIdentifiers) -> RequirementEntry {
        let requirement = assessment.requirement
        let (verdict, reason): (String, String?) = switch assessment.verdict {
        case .contradicted: ("contradicted", nil)
        case .observedWithoutContradiction: ("observedWithoutContradiction", nil)
        case .notAssessed(let reason): ("notAssessed", reason.rawValue)
        }
        return RequirementEntry(
            id: requirement.id, aspect: requirement.aspect,
            title: requirement.title, testDepth: requirement.testDepth.rawValue, rule: requirement.rule.name.rawValue,
            contraryKinds: requirement.rule.contraryKinds.map(\.rawValue),
            supportingKinds: requirement.rule.supportingKinds.map(\.rawValue),
            check: requirement.rule.check?.rawValue,
            verdict: verdict, notAssessedReason: reason,
            verdictStatement: EvidenceWording.statement(of: assessment.verdict),
            toolCoverage: requirement.toolCoverage,
            contraryFindingIDs: assessment.contraryFindings.map(identifiers.id(of:)),
            supportingFindingIDs: assessment.supportingFindings.map(identifiers.id(of:)))
    }

    private static func entry(of finding: Finding, id: String, minimum: TLSProtocolVersion) -> FindingEntry {
        var tlsVersion: TLSVersionEvidence?
        var cleartext: String?
        var unnamed: String?
        var store: String?
        switch finding.evidence {
        case .weakTLSVersion(let observation):
            tlsVersion = TLSVersionEvidence(observation)
        case .cleartextTraffic(let protocolSeen):
            cleartext = protocolSeen.rawValue
        case .unnamedFlow(let reason):
            unnamed = reason.rawValue
        case .refusalNotToldApart(_, let declared):
            store = declared?.rawValue
        case .hostNotInAllowlist, .pinningAbsent, .pinningObserved, .activityBeforeConsent, .requestsBeforeConsent,
             .untrustedIssuerAccepted, .wrongNameAccepted, .expiredCertificateAccepted:
            break
        }
        return FindingEntry(
            id: id, kind: finding.kind.rawValue, check: finding.kind.check.rawValue,
            statement: EvidenceWording.statement(of: finding.evidence, minimum: minimum),
            flows: finding.flowIDs, host: finding.evidence.host, tlsVersion: tlsVersion,
            cleartextProtocol: cleartext, unnamedReason: unnamed, caStore: store)
    }

    private enum CodingKeys: String, CodingKey {
        case format, formatVersion, sessionID, verdicts, catalogue, requirements, findings, checks
    }
}

extension EvidenceFindingsDocument.TLSVersionEvidence {
    init(_ observation: TLSVersionObservation) {
        version = EvidenceTLSVersion(observation.version)
        basis = observation.basis.name
        fromHelloRetryRequest = observation.fromHelloRetryRequest
        helloRetry = observation.helloRetry?.name
        quicVersion = observation.quicVersion.map(EvidenceCodePoint.init)
    }
}

extension EvidenceFindingsDocument.RequestsBeforeConsent {
    /// Nil unless the finding rests on requests read before consent.
    init?(_ finding: Finding, in findings: SessionFindings) {
        guard case .requestsBeforeConsent(let host) = finding.evidence else { return nil }
        let read = findings.requests(behind: finding)
        count = read.count
        bodyBytes = read.reduce(0) { $0 + $1.request.bodyBytes }
        summary = EvidenceWording.Report.requestsBeforeConsent(count: count, bodyBytes: bodyBytes, host: host)
        requests = read.map(EvidenceFindingsDocument.Request.init)
    }
}

extension EvidenceFindingsDocument.Request {
    init(_ read: RequestBeforeConsent) {
        let request = read.request
        flow = read.flowID
        sentAt = request.instant
        version = request.version.rawValue
        method = request.method
        authority = request.authority
        bodyBytes = request.bodyBytes
        responseStatus = request.responseStatus
    }
}
