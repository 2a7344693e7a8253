import Foundation
import Testing
import TunnelVisionAudit
@testable import TunnelVisionEvidence
import TunnelVisionModel

/// The sentences that say what could not be read and why, each asserted verbatim.
struct TruthfulSentenceTests {
    typealias Words = EvidenceWording

    @Test func anEmptyConnectionSaysNothingWasSentNotThatItsStartWasUnseen() {
        #expect(Words.statement(of: EncryptionGap.nothingSent)
            == "The connection's start was seen and no byte was sent after it, either way: there was no opening to read.")
        #expect(Words.statement(of: EncryptionGap.openingNotRead)
            == "The start of the stream was not seen, so how it opened was not read.")
        #expect(Words.statement(of: TLSVersionGap.nothingSent)
            == "The connection's start was seen and no byte was sent after it, either way: there was no handshake to read.")
    }

    @Test(arguments: [
        (HelloRetryReading?.none, "read from the ServerHello"),
        (.retryOnly, "read from a HelloRetryRequest"),
        (.serverHelloAfterRetry, "read from the ServerHello after a HelloRetryRequest"),
        (.notToldApart, "read from a HelloRetryRequest or the ServerHello after it"),
    ])
    func aServerHelloReadAfterARetryIsWordedSo(retry: HelloRetryReading?, expected: String) {
        #expect(Words.Report.readFrom(.serverHello(helloRetry: retry)) == expected)
    }

    static func flow(_ id: Int64, sni: String, server: ServerTLSAnswer?, offer: ClientTLSOffer?) -> StoredFlow {
        let phone = Endpoint(address: IPAddress("10.77.0.2")!, port: UInt16(40_000 + id))
        let remote = Endpoint(address: IPAddress("192.0.2.\(id)")!, port: 443)
        return StoredFlow(id: id, state: FlowState(
            key: FlowKey(proto: .tcp, phone, remote), firstSeen: Instant(timeIntervalSince1970: 1_790_000_000 + Double(id)),
            tlsStatus: .encrypted, sni: sni, serverTLS: server, clientTLS: offer, streamOpening: .tlsHandshake))
    }

    /// A refused connection (alert 70) is a row of the table, and each row says what the phone offered.
    @Test func theTLSReadingsIncludeRefusalsAndWhatThePhoneOffered() {
        let flows = [
            Self.flow(1, sni: "old.lab", server: .refused(alert: 70), offer: ClientTLSOffer(versionsForm: .listed, versions: [.tls13])),
            Self.flow(2, sni: "old.lab", server: .negotiated(TLSNegotiation(version: .tls10, cipherSuite: CipherSuite(0x002F))),
                      offer: ClientTLSOffer(versionsForm: .upTo, versions: [.tls10])),
            Self.flow(3, sni: "api.lab", server: .negotiated(TLSNegotiation(version: .tls12, cipherSuite: CipherSuite(0xC02F))),
                      offer: ClientTLSOffer(versionsForm: .listed, versions: [.tls12])),
            Self.flow(4, sni: "api.lab", server: .negotiated(TLSNegotiation(version: .tls13, cipherSuite: CipherSuite(0x1301))),
                      offer: ClientTLSOffer(versionsForm: .listed, versions: [.tls13, .tls12], hasEncryptedClientHello: true)),
            Self.flow(5, sni: "api.lab", server: .negotiated(TLSNegotiation(version: .tls13, cipherSuite: CipherSuite(0x1301))), offer: nil),
        ]
        let rows = EvidenceTLSReading.readings(of: flows).map { reading in
            [reading.host ?? "", Words.Report.answerVersion(reading.answer), Words.Report.answerReadFrom(reading.answer),
             Words.Report.clientOffered(reading.offer), String(reading.connections)]
        }
        #expect(rows == [
            ["api.lab", "TLS 1.2", "read from the ServerHello", "TLS 1.2 only", "1"],
            ["api.lab", "TLS 1.3", "read from the ServerHello", "TLS 1.3, TLS 1.2 (the outer offer of Encrypted Client Hello)", "1"],
            ["api.lab", "TLS 1.3", "read from the ServerHello", "not read", "1"],
            ["old.lab", "TLS 1.0", "read from the ServerHello", "up to TLS 1.0", "1"],
            ["old.lab", "refused, alert 70", "an alert instead of a ServerHello", "TLS 1.3 only", "1"],
        ])
        #expect(EvidenceWording.Report.noTLSReadings
            == "No connection of the session has a negotiated TLS version or a refusal by alert on record.")
    }
}

/// The report's TLS readings section over the bundle fixture, which holds a refused handshake.
struct TLSReadingsSectionTests {
    @Test func theSectionHasTheOfferColumnAndTheRefusedConnection() throws {
        let bundle = try EvidenceFixture.bundle()
        let report = try EvidenceReport(bundle: bundle, capture: EvidenceReportTests.capture(), limits: .bundled)
        let section = try #require(report.sections.first { $0.kind == .tlsReadings })
        let tables = section.blocks.compactMap { block -> EvidenceReportTable? in
            if case .table(let table) = block { return table }
            return nil
        }
        let readings = try #require(tables.first)
        #expect(readings.columns == ["Host", "Name", "Version", "Read from", "The phone offered", "Connections"])
        #expect(readings.rows.contains { $0[2] == "refused, alert 40" && $0[3] == "an alert instead of a ServerHello" })
        #expect(readings.rows.allSatisfy { $0.count == 6 })
    }
}

/// A dropped QUIC port is said of the phone's connections, and what they did instead
/// is not claimed (a connection may have fallen back to TCP, or failed).
struct QUICDropSentenceTests {
    @Test func theDropIsSaidOfThePhonesConnectionsWithoutClaimingAFallback() {
        let conditions = InspectionConditions(mode: .pinning, caTrusted: true, caFingerprint: "ab", quicDropped: true)
        let sentence = EvidenceWording.Report.pinningReadability(conditions)
        #expect(sentence.hasSuffix(" UDP to port 443 was dropped during it, so no connection of the phone could use QUIC there: its traffic was not left as it is."))
        #expect(!sentence.contains("fell back") && !sentence.contains("the app"))
    }
}
