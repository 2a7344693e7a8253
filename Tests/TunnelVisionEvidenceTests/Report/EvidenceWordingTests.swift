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
            TLSVersionObservation(version: .tls10, basis: .serverHello(helloRetry: nil)),
            TLSVersionObservation(version: .tls11, basis: .serverHello(helloRetry: .retryOnly)),
            TLSVersionObservation(version: .tls11, basis: .serverHello(helloRetry: .serverHelloAfterRetry)),
            TLSVersionObservation(version: .tls11, basis: .serverHello(helloRetry: .notToldApart)),
            TLSVersionObservation(version: .tls11, basis: .upstreamConnection),
            TLSVersionObservation(version: .tls13, basis: .quic(.v2)),
        ]
        var evidence: [FindingEvidence] = observations.map { .weakTLSVersion($0) }
        evidence += CleartextProtocol.allCases.map { .cleartextTraffic($0) }
        evidence += UnnamedFlowReason.allCases.map { .unnamedFlow($0) }
        evidence += [.hostNotInAllowlist(host: "a"), .pinningAbsent(host: "a"), .pinningObserved(host: "a"), .activityBeforeConsent,
                     .requestsBeforeConsent(host: "a"), .requestsBeforeConsent(host: nil)]
        evidence += ([nil] + CATrustStore.allCases).map { .refusalNotToldApart(host: "a", store: $0) }
        evidence += validationEvidence(host: "a")
        let offers: [ClientOfferGap] = [.notRead, .ceilingOnly(.tls12), .encryptedClientHello, .listsWeakerVersion, .listNotConclusive]
        let tlsGaps: [TLSVersionGap] = offers.map { .appNegotiationNotObserved($0, upstreamVersion: .tls13) } + [
            .unrecognisedVersion(TLSProtocolVersion(0x7F1C)), .serverRefused(alert: 40), .quicVersionOnlyProposed(.v1),
            .unrecognisedQUICVersion(QUICVersion(0xff00_001d)), .serverAnswerNotRead, .nothingSent,
        ]
        let encryptionGaps: [EncryptionGap] = [.unrecognisedOpening, .openingNotRead, .nothingSent, .unrecognisedQUICVersion(.v1), .datagramsNotRead]
        let hostGaps: [HostGap] = [.allowlistEmpty, .candidatesDisagree(attributedNameAllowed: true), .candidatesDisagree(attributedNameAllowed: false), .gatewayResolver]
        let verdicts: [RequirementVerdict] = [.contradicted, .observedWithoutContradiction] + NotAssessedReason.allCases.map { .notAssessed($0) }
        let conditions = InspectionMode.allCases.flatMap { mode in
            [true, false].map { InspectionConditions(mode: mode, caTrusted: $0) }
                + CATrustStore.allCases.map { InspectionConditions(mode: mode, caTrusted: true, caStore: $0) }
        }
        let validationGaps: [CertificateValidationGap] = [
            .noDefectPresented, .quicNotInspected, .outcomeWithoutAnnouncedName, .refusalOfUntrustedCA, .closedAfterHandshake,
            .closedDuringHandshake, .relayFailed, .noInspectionOutcome,
        ] + RelaySpliceReason.allCases.map(CertificateValidationGap.notInspected)
        let standings: [EvidenceCaptureStanding] = [
            .nothingRecorded, .complete(packets: 3),
            .incomplete(written: 1, recorded: 4, missing: EvidenceMissingReason.allCases.map { EvidenceMissingPackets(reason: $0, count: 1) },
                        withoutRow: PacketLossReason.allCases.map { EvidencePacketLoss(reason: $0, count: 2) }),
        ]
        typealias Report = EvidenceWording.Report
        return evidence.map { Words.statement(of: $0, minimum: .tls12) }
            + tlsGaps.map(Words.statement(of:)) + encryptionGaps.map(Words.statement(of:))
            + hostGaps.map(Words.statement(of:)) + PinningGap.allCases.map(Words.statement(of:))
            + ConsentGap.allCases.map(Words.statement(of:)) + verdicts.map(Words.statement(of:))
            + validationGaps.map(Words.statement(of:))
            + [Words.Note.attribution, Words.Note.notIncluded(keyLog: EvidenceKeyLog(included: false, flows: 0)), Words.Note.notIncluded(keyLog: EvidenceKeyLog(included: true, flows: 2)), Words.Note.notIncluded(keyLog: EvidenceKeyLog(included: true, flows: 0)), Words.Note.flowsContents, Words.Note.verdicts,
               Words.Note.captureContents, Words.Note.packetComments, Words.Note.labInfrastructure, Words.Note.packetsWithoutRow]
            + conditions.map(Report.pinningReadability) + standings.map(Report.standing)
            + conditions.map(Report.validationReadability) + InspectionMode.allCases.map(Report.inspectionMode)
            + [Report.noMarkers, Report.emptyAllowlist, Report.noFindings, Report.everythingLookedAt, Report.noTLSReadings,
               Report.noCheck, Report.baselineRelease, Report.rowsOmitted(3, file: "flows.json"),
               Report.requestsBeforeConsentScope, Report.requestRowsOmitted(2),
               Report.requestsBeforeConsent(count: 12, bodyBytes: 48_000, host: "api.example"),
               Report.requestsBeforeConsent(count: 1, bodyBytes: 0, host: nil)]
            + FindingsCheck.allCases.map(Report.checkName) + EvidenceReportSectionKind.allCases.map(Report.sectionTitle)
    }()

    @Test func noSentenceClaimsAResultTheToolCannotGive() {
        #expect(Self.everySentence.count > 60)
        for sentence in Self.everySentence {
            let lowered = sentence.lowercased()
            #expect(!Self.forbidden.contains { lowered.contains($0) }, "\(sentence)")
        }
    }

    /// Every string literal of every wording file of the sources, found by walking them: a sentence
    /// added later is covered without anyone adding it to a list.
    @Test func noLiteralOfAnyWordingFileClaimsAResult() throws {
        let files = try WordingSources.files()
        #expect(files.count >= 8, "wording files found: \(files.map(\.lastPathComponent))")
        var literals = 0
        for file in files {
            for literal in try WordingSources.literals(in: file) {
                literals += 1
                // The relay's "passed through" says what it did with a connection, not a result.
                let lowered = literal.lowercased().replacingOccurrences(of: "passed through", with: "")
                #expect(!Self.forbidden.contains { lowered.contains($0) }, "\(file.lastPathComponent): \(literal)")
            }
        }
        #expect(literals > 200)
    }

    @Test(arguments: [
        (RequirementVerdict.notAssessed(.inspectionOff),
         "Not assessed: the session was recorded with TLS inspection off, so no connection could show it either way."),
        (RequirementVerdict.notAssessed(.caNotTrusted),
         "Not assessed: the local CA was not declared trusted on the phone, so no connection could show it either way."),
    ])
    func aNotAssessedVerdictNamesTheConditionThatKeptTheCheckOut(verdict: RequirementVerdict, expected: String) {
        #expect(EvidenceWording.statement(of: verdict) == expected)
    }

    @Test func theCaptureSectionSaysHowManyCrossedWithoutARowAndWhy() {
        let standing = EvidenceCaptureStanding(
            EvidencePacketTally(written: 10, withoutBytes: [:]), withoutRow: [.queueFull: 3, .batchFailed: 4])
        #expect(EvidenceWording.Report.standing(standing)
            == "The capture holds every one of the 10 packets the history records for this session's connections. "
            + "In the minutes the session spans, more packets crossed the tap without a row in the history: "
            + "3 while the recorder's queues were full, 4 in batches the history refused.")
        #expect(EvidenceCaptureStanding(EvidencePacketTally(written: 10, withoutBytes: [:])) == .complete(packets: 10))
    }

    /// A count taken after a daemon that never stopped cleanly knows only what was handed
    /// over before its last tally, and says so.
    @Test func packetsLostWhenTheDaemonStoppedWithoutACleanStopAreCountedAsAtLeast() {
        let standing = EvidenceCaptureStanding(
            EvidencePacketTally(written: 10, withoutBytes: [:]), withoutRow: [.queueFull: 3, .daemonStopped: 7])
        #expect(EvidenceWording.Report.standing(standing)
            == "The capture holds every one of the 10 packets the history records for this session's connections. "
            + "In the minutes the session spans, more packets crossed the tap without a row in the history: "
            + "3 while the recorder's queues were full, at least 7 queued or in a batch not yet committed when the daemon "
            + "stopped without a clean stop.")
        #expect(EvidenceWording.Report.lossCount(EvidencePacketLoss(reason: .batchFailed, count: 4)) == "4")
    }

    @Test func theClientsOfferIsSaidOfThePhoneNeverOfTheApp() {
        let offers: [ClientOfferGap] = [.notRead, .ceilingOnly(.tls12), .encryptedClientHello, .listsWeakerVersion, .listNotConclusive]
        for offer in offers {
            let sentence = EvidenceWording.statement(of: TLSVersionGap.appNegotiationNotObserved(offer, upstreamVersion: .tls13))
            #expect(sentence.contains("the phone's") && !sentence.contains("the app's"), "\(sentence)")
        }
        #expect(EvidenceWording.statement(of: ClientOfferGap.notRead) == "the phone's own ClientHello was not read.")
    }

    @Test(arguments: [
        (EvidenceWording.statement(of: HostGap.gatewayResolver),
         "A query to the gateway's resolver: where the names it asked for led is judged on the connections that followed."),
        (EvidenceWording.statement(of: FindingEvidence.unnamedFlow(.dnsToOtherResolver), minimum: .tls12),
         "A DNS query to a resolver other than the gateway's."),
        (EvidenceWording.statement(of: FindingEvidence.cleartextTraffic(.dns), minimum: .tls12),
         "Cleartext DNS to another resolver: datagrams went to port 53 of a resolver other than the gateway's."),
    ])
    func theResolverSentencesReadAsIssue15Says(sentence: String, expected: String) {
        #expect(sentence == expected)
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
