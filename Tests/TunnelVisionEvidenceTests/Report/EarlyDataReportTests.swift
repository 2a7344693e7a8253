import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionEvidence

/// The report's TLS readings say what flows.json says of early data.
@Suite struct EarlyDataReportTests {
    static func flow(_ id: Int64, earlyData: EarlyDataReading?) -> StoredFlow {
        let phone = Endpoint(address: IPAddress("10.0.0.2")!, port: UInt16(50000 + id))
        let server = Endpoint(address: IPAddress("192.0.2.1")!, port: 443)
        var state = FlowState(key: FlowKey(proto: .tcp, phone, server), firstSeen: Instant(timeIntervalSince1970: 0))
        state.sni = "api.example"
        state.clientTLS = ClientTLSOffer(versionsForm: .listed, versions: [.tls13], offersEarlyData: earlyData != nil)
        state.earlyData = earlyData
        state.serverTLS = .negotiated(TLSNegotiation(version: .tls13, cipherSuite: CipherSuite(0x1301)))
        return StoredFlow(id: id, state: state)
    }

    @Test func aReadingSaysWhetherEarlyDataWasOfferedSentAndRefused() {
        let readings = EvidenceTLSReading.readings(of: [
            Self.flow(1, earlyData: nil),
            Self.flow(2, earlyData: EarlyDataReading(wasSent: true, serverAnswer: .refusedByHelloRetryRequest)),
            Self.flow(3, earlyData: EarlyDataReading(wasSent: true, serverAnswer: .refusedByHelloRetryRequest)),
            Self.flow(4, earlyData: EarlyDataReading(wasSent: false, serverAnswer: .notVisible)),
        ])
        let offered = readings.map { (EvidenceWording.Report.clientOffered($0.offer), $0.connections) }
        #expect(offered.count == 3)
        #expect(offered.contains { $0 == ("TLS 1.3 only", 1) })
        #expect(offered.contains { $0 == ("TLS 1.3 only; 0-RTT early data offered and sent, refused by a HelloRetryRequest", 2) })
        #expect(offered.contains { $0 == ("TLS 1.3 only; 0-RTT early data offered, not seen sent, its acceptance not visible (encrypted)", 1) })
    }
}
