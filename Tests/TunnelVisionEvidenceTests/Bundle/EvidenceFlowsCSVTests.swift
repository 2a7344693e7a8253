import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionEvidence

struct EvidenceFlowsCSVTests {
    @Test(arguments: [
        ("plain", "plain"),
        ("=1+2", "'=1+2"),
        ("+49 30", "'+49 30"),
        ("-5", "'-5"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "\"'\rx\""),
        ("a,b", "\"a,b\""),
        ("say \"hi\"", "\"say \"\"hi\"\"\""),
        ("two\r\nlines", "\"two\r\nlines\""),
        ("=a,\"b\"", "\"'=a,\"\"b\"\"\""),
        ("", ""),
    ])
    func cellsAreQuotedAndDefusedAsRFC4180AndSpreadsheetsNeed(cell: String, written: String) {
        #expect(EvidenceCSVCell.escape(cell) == written)
    }

    @Test func oneRowPerFlowInTheOrderOfFlowsJSON() throws {
        let bundle = try EvidenceFixture.bundle()
        let data = try #require(bundle.documentFiles().first { $0.name == "flows.csv" }).data
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.hasSuffix("\r\n"))
        let lines = text.components(separatedBy: "\r\n").dropLast()
        #expect(lines.count == bundle.flows.flows.count + 1)
        #expect(lines.first == EvidenceFlowsCSV.headers.joined(separator: ","))
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.map { $0.first.map(String.init) } == bundle.flows.flows.map { String($0.id) })
        #expect(text.contains("'=cmd|' /C calc'!A0.tracker.example"))
        #expect(text.contains(",TLS1.0,0x002F,"))
        #expect(text.contains("0x7F1C TLS1.3"))
        #expect(text.contains("\"CN=Acme CA, O=\"\"Acme, Inc.\"\"\""))
    }

    /// flows.json's fields of one cell each have their columns: the hosts a request named, the
    /// payload sighting, the retry, the early data, QUIC's first version, the PROXY header.
    @Test func everyOneCellFieldOfFlowsJSONHasItsColumn() {
        let phone = Endpoint(address: IPAddress("10.0.0.2")!, port: 50000)
        let server = Endpoint(address: IPAddress("2001:db8::1")!, port: 443)
        var state = FlowState(key: FlowKey(proto: .udp, phone, server), firstSeen: Instant(timeIntervalSince1970: 0))
        state.httpHost = "plain.example"
        state.socksHost = "socks.example"
        state.tcpPayload = .carried
        state.clientTLS = ClientTLSOffer(versionsForm: .listed, versions: [.tls13], offersEarlyData: true)
        state.earlyData = EarlyDataReading(wasSent: true, serverAnswer: .refusedByHelloRetryRequest)
        state.serverTLS = .negotiated(TLSNegotiation(version: .tls13, cipherSuite: CipherSuite(0x1301), helloRetry: .serverHelloAfterRetry))
        state.quic = QUICReading(version: .v1, end: .server, firstVersion: QUICVersion(0x1A2A_3A4A))
        state.proxyProtocol = ProxyProtocolAnnouncement(version: 2, source: phone, destination: server)
        let row = EvidenceFlowsCSV.row(of: EvidenceFlow(StoredFlow(id: 7, state: state), findingIDs: nil))
        #expect(row.count == EvidenceFlowsCSV.headers.count)
        let cells = Dictionary(uniqueKeysWithValues: zip(EvidenceFlowsCSV.headers, row))
        #expect(cells["httpHost"] == "plain.example" && cells["socksHost"] == "socks.example")
        #expect(cells["tcpPayload"] == "carried" && cells["helloRetry"] == "serverHelloAfterRetry")
        #expect(cells["earlyDataOffered"] == "true" && cells["earlyDataSent"] == "true")
        #expect(cells["earlyDataServerAnswer"] == "refusedByHelloRetryRequest")
        #expect(cells["quicFirstVersion"] == "0x1A2A3A4A")
        #expect(cells["proxyProtocolVersion"] == "2" && cells["proxyProtocolSource"] == "10.0.0.2:50000")
        #expect(cells["proxyProtocolDestination"] == "[2001:db8::1]:443")
    }
}
