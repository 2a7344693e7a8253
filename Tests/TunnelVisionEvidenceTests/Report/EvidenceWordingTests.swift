import Foundation
import Testing
import TunnelVisionAudit
@testable import TunnelVisionEvidence
import TunnelVisionModel

/// No sentence the bundle writes may claim a result the tool cannot give.
struct EvidenceWordingTests {
    static let forbidden = ["passed", "compliant", "compliance", "fulfilled", "fulfils", "fulfills"]

    static let everySentence: [String] = {
        typealias Words = EvidenceWording
        let observations = [
            TLSVersionObservation(version: .tls10, basis: .serverHello(fromHelloRetryRequest: false)),
            TLSVersionObservation(version: .tls11, basis: .serverHello(fromHelloRetryRequest: true)),
            TLSVersionObservation(version: .tls11, basis: .upstreamConnection),
            TLSVersionObservation(version: .tls13, basis: .quic(.v2)),
        ]
        var evidence: [FindingEvidence] = observations.map { .weakTLSVersion($0) }
        evidence += CleartextProtocol.allCases.map { .cleartextTraffic($0) }
        evidence += UnnamedFlowReason.allCases.map { .unnamedFlow($0) }
        evidence += [.hostNotInAllowlist(host: "a"), .pinningAbsent(host: "a"), .pinningObserved(host: "a"), .activityBeforeConsent]
        evidence += validationEvidence(host: "a")
        let offers: [ClientOfferGap] = [.notRead, .ceilingOnly(.tls12), .encryptedClientHello, .listsWeakerVersion, .listNotConclusive]
        let tlsGaps: [TLSVersionGap] = offers.map { .appNegotiationNotObserved($0, upstreamVersion: .tls13) } + [
            .unrecognisedVersion(TLSProtocolVersion(0x7F1C)), .serverRefused(alert: 40), .quicVersionOnlyProposed(.v1),
            .unrecognisedQUICVersion(QUICVersion(0xff00_001d)), .serverAnswerNotRead,
        ]
        let encryptionGaps: [EncryptionGap] = [.unrecognisedOpening, .openingNotRead, .unrecognisedQUICVersion(.v1), .datagramsNotRead]
        let hostGaps: [HostGap] = [.allowlistEmpty, .candidatesDisagree(attributedNameAllowed: true), .candidatesDisagree(attributedNameAllowed: false)]
        let verdicts: [RequirementVerdict] = [.contradicted, .observedWithoutContradiction] + NotAssessedReason.allCases.map { .notAssessed($0) }
        let conditions = InspectionMode.allCases.flatMap { mode in
            [true, false].map { InspectionConditions(mode: mode, caTrusted: $0) }
        }
        let validationGaps: [CertificateValidationGap] = [
            .noDefectPresented, .quicNotInspected, .outcomeWithoutAnnouncedName, .refusalOfUntrustedCA, .closedAfterHandshake,
            .closedDuringHandshake, .relayFailed, .noInspectionOutcome,
        ] + RelaySpliceReason.allCases.map(CertificateValidationGap.notInspected)
        let standings: [EvidenceCaptureStanding] = [
            .nothingRecorded, .complete(packets: 3),
            .incomplete(written: 1, recorded: 4, missing: EvidenceMissingReason.allCases.map { EvidenceMissingPackets(reason: $0, count: 1) }),
        ]
        typealias Report = EvidenceWording.Report
        return evidence.map { Words.statement(of: $0, minimum: .tls12) }
            + tlsGaps.map(Words.statement(of:)) + encryptionGaps.map(Words.statement(of:))
            + hostGaps.map(Words.statement(of:)) + PinningGap.allCases.map(Words.statement(of:))
            + ConsentGap.allCases.map(Words.statement(of:)) + verdicts.map(Words.statement(of:))
            + validationGaps.map(Words.statement(of:))
            + [Words.Note.attribution, Words.Note.notIncluded(keyLog: EvidenceKeyLog(included: false, flows: 0)), Words.Note.notIncluded(keyLog: EvidenceKeyLog(included: true, flows: 2)), Words.Note.notIncluded(keyLog: EvidenceKeyLog(included: true, flows: 0)), Words.Note.flowsContents, Words.Note.verdicts,
               Words.Note.captureContents, Words.Note.packetComments]
            + conditions.map(Report.pinningReadability) + standings.map(Report.standing)
            + conditions.map(Report.validationReadability) + InspectionMode.allCases.map(Report.inspectionMode)
            + [Report.noMarkers, Report.emptyAllowlist, Report.noFindings, Report.everythingLookedAt, Report.noTLSReadings,
               Report.noCheck, Report.baselineRelease, Report.rowsOmitted(3, file: "flows.json")]
            + FindingsCheck.allCases.map(Report.checkName) + EvidenceReportSectionKind.allCases.map(Report.sectionTitle)
    }()

    @Test func noSentenceClaimsAResultTheToolCannotGive() {
        #expect(Self.everySentence.count > 60)
        for sentence in Self.everySentence {
            let lowered = sentence.lowercased()
            #expect(!Self.forbidden.contains { lowered.contains($0) }, "\(sentence)")
        }
    }

    @Test func noStatementCarriesTheDataOfItsFinding() {
        for host in ["api.acme.example", "pinned.acme.example"] {
            for evidence in [FindingEvidence.hostNotInAllowlist(host: host), .pinningAbsent(host: host), .pinningObserved(host: host)] {
                #expect(!EvidenceWording.statement(of: evidence, minimum: .tls12).contains(host))
            }
        }
        let weak = EvidenceWording.statement(of: .weakTLSVersion(.init(version: .tls10, basis: .upstreamConnection)), minimum: .tls12)
        #expect(!weak.contains("TLS 1.0") && weak.contains("TLS 1.2") && weak.contains("tunnel's own connection"))
    }

    static func validationEvidence(host: String) -> [FindingEvidence] {
        [.untrustedIssuerAccepted(host: host), .wrongNameAccepted(host: host), .expiredCertificateAccepted(host: host)]
    }

    @Test func validationIsSaidOfWhatTheConnectionDidNeverOfTheApp() {
        for evidence in Self.validationEvidence(host: "api.acme.example") {
            let statement = EvidenceWording.statement(of: evidence, minimum: .tls12)
            let lowered = statement.lowercased()
            #expect(lowered.hasPrefix("a connection to this host continued over a certificate"), "\(statement)")
            #expect(!lowered.contains("validat") && !lowered.contains("the app") && !statement.contains("api.acme.example"))
        }
        #expect(EvidenceWording.statement(of: .untrustedIssuerAccepted(host: "a"), minimum: .tls12)
            == "A connection to this host continued over a certificate from an issuer no device trusts.")
    }

    @Test func pinningIsSaidOfTheHostNeverOfTheApp() {
        let observed = EvidenceWording.statement(of: .pinningObserved(host: "a"), minimum: .tls12).lowercased()
        #expect(observed.contains("host") && observed.contains("predate"))
        #expect(!observed.contains("app pins") && !observed.contains("the app"))
    }

    @Test func everySentenceOfARealReportIsClean() throws {
        let report = try EvidenceReport(bundle: EvidenceFixture.bundle(), capture: EvidenceReportTests.capture(), limits: .bundled)
        for text in EvidenceReportTests.text(of: report) {
            #expect(!Self.forbidden.contains { text.lowercased().contains($0) }, "\(text)")
        }
    }
}
