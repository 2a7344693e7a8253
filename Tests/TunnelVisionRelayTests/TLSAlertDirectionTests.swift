import COpenSSL
import Testing
@testable import TunnelVisionRelay

@Suite struct TLSAlertDirectionTests {
    // SSL_CB_READ_ALERT is 0x4004 and SSL_CB_WRITE_ALERT 0x4008: they share the alert bit 0x4000.
    @Test func anAlertWeWriteIsNeverTakenForOneWeRead() {
        #expect(TLSSession.AlertDirection(situation: 0x4004) == .read)
        #expect(TLSSession.AlertDirection(situation: 0x4008) == .written)
        #expect(TLSSession.AlertDirection(situation: 0x4000) == nil)
        #expect(TLSSession.AlertDirection(situation: 0x01) == nil)
        #expect(TLSSession.AlertDirection(situation: 0x2002) == nil)
    }
}
