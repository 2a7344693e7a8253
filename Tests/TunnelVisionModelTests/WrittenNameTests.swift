import Testing
import TunnelVisionModel

/// The names documents and `tvctl` write are a format: a renamed case would change every bundle
/// exported after it, so each name is pinned here, where a rename fails.
@Suite struct WrittenNameTests {
    @Test func everyKindIsWrittenByTheNameTheDocumentsUse() {
        #expect(AuditSerialization.SessionKindCode.allCases.map(\.name) == ["baseline", "audit"])
        #expect(AuditSerialization.MarkerKindCode.allCases.map(\.name) == ["consentGiven", "loggedIn", "loggedOut", "custom"])
        #expect(TLSInspectionStatus.allCases.map(\.name) == ["plaintext", "encrypted", "inspected", "notInspectable"])
        #expect([CertificateAbsence.resumedSession, .noCertificateMessage].map(\.name) == ["resumedSession", "noCertificateMessage"])
        #expect(PacketLossReason.allCases.map(\.name) == ["queueFull", "batchFailed", "daemonStopped"])
        #expect(StreamOpening.allCases.map(\.name) == ["tlsHandshake", "httpRequest", "unrecognised"])
    }
}
