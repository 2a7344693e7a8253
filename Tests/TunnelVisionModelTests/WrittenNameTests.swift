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
        #expect(RelayEventKind.allCases.map(\.name) == [
            "phoneClosedAfterHandshake", "phoneResetAfterHandshake", "phoneLeftDuringHandshake", "phoneClosingAlertDuringHandshake",
            "serverClosedBeforePhoneData", "upstreamUnreachable", "upstreamRefusedByPolicy", "relaySentAlert",
            "phoneRefusedMirroredCertificate", "handedToPlainUpstream", "relayFailed", "closed",
        ])
        #expect(ShownLeafKind.allCases.map(\.name) == [
            "installedAuthority", "untrustedIssuer", "wrongName", "expired", "mirroredUntrustedIssuer", "unverifiedUpstreamNotMirrored",
        ])
        #expect(RelayDecisionKind.allCases.map(\.name) == ["terminated", "undecided"] + RelaySpliceReason.allCases.map { "spliced." + $0.rawValue })
        #expect(RelayDecisionKind.spliced(.holdFull).name == "spliced.holdFull")
    }

    /// Each kind is read back from its name through the same table, and a name this version does
    /// not know is read as none rather than as another.
    @Test func everyWrittenNameReadsBackAsItsKind() {
        for kind in RelayEventKind.allCases { #expect(RelayEventKind(name: kind.name) == kind) }
        for kind in ShownLeafKind.allCases { #expect(ShownLeafKind(name: kind.name) == kind) }
        for kind in RelayDecisionKind.allCases { #expect(RelayDecisionKind(name: kind.name) == kind) }
        #expect(RelayEventKind(name: "somethingNew") == nil)
        #expect(RelayDecisionKind(name: "spliced.somethingNew") == nil)
        #expect(RelayDecisionKind(name: "spliced.") == nil)
    }
}
