import Foundation
import TunnelVisionAudit
import TunnelVisionModel

/// What the report says in its own voice: titles, labels, column headings and the sentences
/// that stand where a list is empty or cut short.
extension EvidenceWording.Report {
    public static let title = "Network evidence report"

    public static func subtitle(project: String, release: (version: String, build: String)?, sessionID: Int64) -> String {
        let recording = release.map { "\($0.version) (\($0.build))" } ?? "baseline"
        return "\(project) · \(recording) · session \(sessionID)"
    }

    public static func sectionTitle(_ kind: EvidenceReportSectionKind) -> String {
        switch kind {
        case .session: "1 Session"
        case .method: "2 Method"
        case .catalogue: "3 Requirement catalogue"
        case .requirements: "4 Requirements"
        case .findings: "5 Findings"
        case .checks: "6 Checks"
        case .tlsReadings: "7 TLS readings"
        case .capture: "8 Capture"
        }
    }

    /// "2026-10-09 14:03:07 UTC": to the second, which is what a person compares.
    public static func instant(_ date: Date) -> String {
        EvidenceUTCStamp(date).readable + " UTC"
    }

    public static func yesNo(_ value: Bool) -> String { value ? "yes" : "no" }

    /// The trust declaration as the session's facts show it: the store, when one was named.
    public static func caTrusted(_ trusted: Bool, store: CATrustStore?) -> String {
        switch store {
        case .user?: "yes, installed in the user store"
        case .userFullTrust?: "yes, installed as a user CA with full trust on (iOS)"
        case .system?: "yes, installed in the system store"
        case nil: yesNo(trusted)
        }
    }

    /// The timestamp fact of the first page: the TSA asked, or why none was.
    public static func timestamp(_ timestamp: EvidenceTimestampNote) -> String {
        switch (timestamp.authority, timestamp.file) {
        case (nil, _): "none: no time-stamping authority is configured"
        case (let authority?, nil): "none: exported with --no-timestamp (the TSA \(authority) was not asked)"
        case (let authority?, _?):
            "asked of \(authority) over manifest.json's SHA-256 (manifest.json.tsr); the instant it vouches for is in that reply, which this report, listed in the manifest, cannot hold"
        }
    }

    /// The signature fact of the first page: the key id, or that there is no signature.
    public static func signedWith(_ signature: EvidenceSignatureNote) -> String {
        guard let keyID = signature.keyID else { return "not signed: the gateway had no signing key" }
        return "gateway key \(keyID) (minisign, manifest.json.minisig)"
    }

    // MARK: Session

    public static let baselineRelease = "Baseline: recorded without the audited app"
    public static let noNotes = "None"
    public static let noGatewayResolvers = "None named by the daemon: DNS to any resolver is judged as any other connection"

    public static func pinningReadability(_ conditions: InspectionConditions) -> String {
        if conditions.supportsPinningEvidence {
            let ca = conditions.caFingerprint.map { "the local CA (SHA-256 \($0))" } ?? "the local CA"
            let quic = conditions.quicDropped
                ? " UDP to port 443 was dropped during it, so no connection of the phone could use QUIC there: its traffic was not left as it is."
                : ""
            return "Pinning can be read from this session: it was recorded with the TLS inspection relay running and \(ca) "
                + "declared trusted on the phone. What is read is whether connections accepted the local CA, never why. "
                + "A refusal counts as pinning only where a connection to another host of this recording accepted the CA; "
                + "otherwise this recording cannot tell pinning from distrust of \(EvidenceWording.phrase(of: conditions.caStore))." + quic
        }
        let cause = switch conditions.mode {
        case .off: "it was recorded with TLS inspection off"
        case .pinning: "the local CA was not declared trusted on the phone, so a refused certificate says nothing of the app"
        case .validation: "the relay presented certificates made to be refused, so a refusal says nothing of pinning"
        }
        return "Nothing about pinning can be read from this session: \(cause)."
    }

    /// What the relay presented, as the session's facts show it.
    public static func inspectionMode(_ mode: InspectionMode) -> String {
        switch mode {
        case .off: "off"
        case .pinning: "on, certificates of the local CA for the announced name (pinning)"
        case .validation(let defect): "on, " + certificatePresented(defect) + " (\(AuditSerialization.name(of: defect)))"
        }
    }

    static func certificatePresented(_ defect: CertificateDefect) -> String {
        switch defect {
        case .untrustedIssuer: "certificates from an issuer made for this recording alone and installed nowhere"
        case .wrongName: "certificates of the local CA for a name other than the one announced"
        case .expired: "certificates of the local CA whose validity ended before the recording began"
        }
    }

    public static func validationReadability(_ conditions: InspectionConditions) -> String {
        guard let defect = conditions.mode.defect else {
            return "Nothing about certificate validation can be read from this session: it presented no certificate made to be refused."
        }
        let read = "Certificate validation can be read from this session: for every connection it inspected, the relay presented "
            + certificatePresented(defect) + ". What is read is whether each connection went on over it, never why."
        guard defect != .untrustedIssuer, !conditions.caTrusted else { return read }
        return read + " The local CA was not declared trusted on the phone, so a refusal is not counted: it may be of the CA."
    }

    public static let markersHeading = "Markers"
    public static let noMarkers =
        "No marker was placed in this session: no connection can be placed before or after consent, so the consent check assessed none."
    public static let allowlistHeading = "Allowlist"
    public static let emptyAllowlist =
        "The project's allowlist is empty: no named connection could be judged against it, and only connections without a name are findings of the host check."

    public static func markerName(kind: String, label: String?) -> String {
        switch kind {
        case "consentGiven": "Consent given"
        case "loggedIn": "Logged in"
        case "loggedOut": "Logged out"
        default: label.map { "“\($0)”" } ?? kind
        }
    }

    // MARK: Method

    public static let attributionHeading = "How traffic is attributed (session.json)"
    public static let notIncludedHeading = "What the bundle does not hold (session.json)"
    public static let labInfrastructureHeading = "The gateway's resolver (session.json)"
    public static let readingsHeading = "How the readings are to be taken (flows.json)"
    public static let verdictsHeading = "What a verdict is (findings.json)"

    // MARK: Catalogue

    public static let requirementsDocument = "Requirements document"
    public static let tlsDocument = "TLS minimum from"

    public static func minimum(_ version: TLSProtocolVersion) -> String { version.displayText }

    // MARK: Requirements

    public static func requirementHeading(id: String, title: String) -> String { "\(id) — \(title)" }

    public static func aspect(number: Int, name: String) -> String { "(\(number)) \(name)" }

    public static func findingList(_ ids: [String], limit: Int) -> String {
        guard !ids.isEmpty else { return "None" }
        let shown = ids.prefix(limit).joined(separator: ", ")
        return ids.count > limit ? shown + " … \(ids.count - limit) more in findings.json" : shown
    }

    public static func coverage(_ summary: CheckCoverageSummary) -> String {
        "\(summary.totalFlows) in all: \(summary.findingFlows) behind a finding, \(summary.satisfiedFlows) looked at "
            + "with nothing to report, \(summary.unassessedFlows) not assessed, \(summary.notApplicableFlows) not applicable"
    }

    public static let noCheck = "None: no check of this tool bears on it"

    // MARK: Findings

    public static let noFindings = "The session's connections prove no finding in any of the six checks."
    public static let notAboutAnything = "—"

    public static func flowIDs(_ ids: [Int64], limit: Int) -> String {
        let shown = ids.prefix(limit).map(String.init).joined(separator: " ")
        return ids.count > limit ? shown + " … \(ids.count - limit) more in findings.json" : shown
    }

    public static func tlsReading(_ version: TLSProtocolVersion, basis: TLSVersionObservation.Basis) -> String {
        "\(version.displayText), \(readFrom(basis))"
    }

    /// The Version cell of a TLS reading: the negotiated version, or the refusal.
    public static func answerVersion(_ answer: EvidenceTLSReading.Answer) -> String {
        switch answer {
        case .negotiated(let observation): observation.version.displayText
        case .refused(let alert): "refused, alert \(alert)"
        }
    }

    /// The Read from cell of a TLS reading.
    public static func answerReadFrom(_ answer: EvidenceTLSReading.Answer) -> String {
        switch answer {
        case .negotiated(let observation): readFrom(observation.basis)
        case .refused: "an alert instead of a ServerHello"
        }
    }

    /// What the phone's ClientHello offered: "TLS 1.3, TLS 1.2", "TLS 1.2 only", "up to TLS 1.0"
    /// (a ClientHello without supported_versions gives only its ceiling).
    public static func clientOffered(_ offer: EvidenceTLSReading.Offer?) -> String {
        guard let offer else { return "not read" }
        let versions = offer.versions.map(\.displayText)
        var text: String = switch offer.form {
        case .upTo: "up to " + (versions.first ?? "an unstated version")
        case .listed where versions.count == 1: versions[0] + " only"
        case .listed: versions.isEmpty ? "no version it lists is known" : versions.joined(separator: ", ")
        }
        if offer.encryptedClientHello { text += " (the outer offer of Encrypted Client Hello)" }
        if let earlyData = offer.earlyData { text += "; " + offeredEarlyData(earlyData) }
        return text
    }

    /// The early data of an offer in a few words: whether it was sent, what the server's hellos showed.
    public static func offeredEarlyData(_ reading: EarlyDataReading) -> String {
        let sending = reading.wasSent ? "0-RTT early data offered and sent" : "0-RTT early data offered, not seen sent"
        switch reading.serverAnswer {
        case .notVisible?: return sending + ", its acceptance not visible (encrypted)"
        case .refusedByHelloRetryRequest?: return sending + ", refused by a HelloRetryRequest"
        case .refusedByServerHello?: return sending + ", refused by the ServerHello"
        case nil: return sending + ", the server's answer not read"
        }
    }

    public static let relayHeading = "The inspection relay"

    /// One connection's end at the relay, from its decision and event (kinds of RelayEvent and SpliceReason).
    public static func relayEvent(decision: String, event: String?, alert: UInt8?, presented: String? = nil) -> String {
        if presented == "mirroredUntrustedIssuer", event == "closed" || event == nil {
            return "Inspected: the phone sent application data over a certificate of an untrusted issuer, shown because the server's own did not verify"
        }
        switch event {
        case "phoneClosedAfterHandshake"?:
            return "Handshake completed with the local CA's certificate, then closed without application data: no outcome (apps that check pins after the handshake close so)"
        case "phoneResetAfterHandshake"?:
            return "Handshake completed with the local CA's certificate, then reset without application data: no outcome"
        case "phoneLeftDuringHandshake"?: return "The phone closed during the handshake without an alert: no outcome"
        case "phoneClosingAlertDuringHandshake"?: return "The phone sent a closing alert during the handshake: no outcome"
        case "serverClosedBeforePhoneData"?: return "The server closed before the phone sent data: no outcome"
        case "upstreamUnreachable"?: return "The server did not answer; the phone's connection was reset"
        case "handedToPlainUpstream"?: return "The relay's TLS to the server failed before it answered; passed through untouched"
        case "relayFailed"?: return "The relay failed during the connection: no outcome"
        case "relaySentAlert"?:
            return "The relay ended the phone's handshake with its own TLS alert\(alert.map { " \($0)" } ?? ""): the relay's failure, no outcome"
        case "upstreamRefusedByPolicy"?:
            return "The phone named a destination the relay never dials (the gateway itself, loopback, link-local or multicast); the phone's connection was reset"
        case "phoneRefusedMirroredCertificate"?:
            return "The server's certificate did not verify, so the phone was shown one of an untrusted issuer; it refused\(alert.map { " with TLS alert \($0)" } ?? ""), as it would have refused the server's: no outcome"
        default: break
        }
        if decision == "terminated", let alert {
            return "The phone refused the local CA's certificate with TLS alert \(alert): not inspectable"
        }
        if decision == "spliced.hostRemembered" { return "Passed through: the host refused the local CA earlier in this run of the daemon" }
        if decision == "spliced.phoneConnectionCap" {
            return "Passed through untouched: the phone already held as many connections through the relay as it takes from one phone"
        }
        if decision.hasPrefix("spliced.") { return "Passed through untouched (\(decision.dropFirst("spliced.".count)))" }
        return event == "closed" ? "Inspected: the phone sent application data over the local CA's certificate" : "Terminated"
    }

    /// The session's `upstream_mirror`, as the relay ran with it.
    public static func upstreamMirror(_ mirrored: Bool) -> String {
        mirrored ? "shown to the phone as a certificate of an untrusted issuer, so that it refuses them as it would without the relay"
            : "shown to the phone with the relay's certificate all the same (upstream_mirror off)"
    }

    public static func upstreamVerification(_ verified: Bool?, presented: String? = nil) -> String {
        switch (verified, presented) {
        case (false?, "mirroredUntrustedIssuer"?):
            return "did not verify against the relay's trust store, so the phone was shown a certificate of an untrusted issuer in its place: the phone's own validation decided, as without the relay"
        case (false?, "unverifiedUpstreamNotMirrored"?):
            return "did not verify against the relay's trust store, and the phone was shown the relay's certificate all the same (upstream_mirror off)"
        default: break
        }
        return switch verified {
        // The daemon's trust store: the system's unless upstream_trust names another.
        case true?: "verified against the relay's trust store"
        case false?: "did not verify against the relay's trust store"
        case nil: "not read"
        }
    }

    public static func readFrom(_ basis: TLSVersionObservation.Basis) -> String {
        switch basis {
        case .serverHello(helloRetry: nil): "read from the ServerHello"
        case .serverHello(helloRetry: .retryOnly): "read from a HelloRetryRequest"
        case .serverHello(helloRetry: .serverHelloAfterRetry): "read from the ServerHello after a HelloRetryRequest"
        case .serverHello(helloRetry: .notToldApart): "read from a HelloRetryRequest or the ServerHello after it"
        case .upstreamConnection: "read from the tunnel's own connection"
        case .quic(let version): "from the server's \(version.name ?? "QUIC " + version.hex)"
        }
    }

    // MARK: Checks

    public static func checkName(_ check: FindingsCheck) -> String {
        switch check {
        case .encryption: "Encryption"
        case .tlsVersion: "TLS version"
        case .host: "Destination host"
        case .pinning: "Certificate pinning"
        case .consent: "Consent"
        case .certificateValidation: "Certificate validation"
        }
    }

    public static let everythingLookedAt = "The check could look at every connection it applies to."

    // MARK: TLS readings

    public static let noTLSReadings = "No connection of the session has a negotiated TLS version or a refusal by alert on record."
    public static let noName = "(no name)"

    public static func nameOrigin(_ origin: FlowName.Origin?) -> String {
        switch origin {
        case .sni: "announced (SNI)"
        case .httpHost: "announced (HTTP Host)"
        case .socksRequest: "announced (SOCKS request)"
        case .dns: "inferred from DNS"
        case nil: "—"
        }
    }

    public static func rowsOmitted(_ count: Int, file: String) -> String {
        "\(count) more rows are not shown here; every reading is in \(file)."
    }

    // MARK: Capture

    public static func standing(_ standing: EvidenceCaptureStanding) -> String {
        switch standing {
        case .nothingRecorded:
            return "The history holds no packet of this session's connections: the capture is empty."
        case .complete(let packets):
            return "The capture holds every one of the \(packets) packets the history records for this session's connections."
        case .incomplete(let written, let recorded, let missing, let withoutRow):
            let reasons = missing.map { "\($0.count) \(missingReason($0.reason))" }.joined(separator: ", ")
            var sentence = missing.isEmpty
                ? "The capture holds every one of the \(recorded) packets the history records for this session's connections."
                : "The capture holds \(written) of the \(recorded) packets the history records for this session's "
                    + "connections; the others have no bytes: \(reasons)."
            if !withoutRow.isEmpty {
                let lost = withoutRow.map { "\(lossCount($0)) \(lossReason($0.reason))" }.joined(separator: ", ")
                sentence += " In the minutes the session spans, more packets crossed the tap without a row in the history: \(lost)."
            }
            return sentence
        }
    }

    /// One passive-tap capture session's drops, as the report states them.
    public static func passiveTapDrops(_ drops: EvidenceCaptureDocument.PassiveTapDrops) -> String {
        let dropped = drops.kernelDropped &+ drops.interfaceDropped
        guard dropped > 0 else {
            return "The passive tap (\(drops.input), capture session \(drops.captureSession)) recorded in this session's span, "
                + "and libpcap counted no packet dropped by the kernel or the interface over that capture session."
        }
        return "The passive tap (\(drops.input), capture session \(drops.captureSession)) recorded in this session's span: "
            + "over that capture session the capture missed \(drops.kernelDropped) packets the kernel dropped "
            + "and \(drops.interfaceDropped) packets the interface dropped, as libpcap counts them; they have neither row nor bytes, "
            + "and some may fall outside this session."
    }

    public static func lossReason(_ reason: PacketLossReason) -> String {
        switch reason {
        case .queueFull: "while the recorder's queues were full"
        case .batchFailed: "in batches the history refused"
        case .daemonStopped: "queued or in a batch not yet committed when the daemon stopped without a clean stop"
        }
    }

    /// "at least" where the history's count can only be a lower bound (`countIsLowerBound`).
    public static func lossCount(_ loss: EvidencePacketLoss) -> String {
        loss.reason.countIsLowerBound ? "at least \(loss.count)" : "\(loss.count)"
    }

    public static func missingReason(_ reason: EvidenceMissingReason) -> String {
        switch reason {
        case .notCaptured: "never written to a capture file"
        case .captureFileMissing: "in a capture file no longer on the disk"
        case .recordUnreadable: "in a record that could not be read back"
        }
    }
}

extension EvidenceWording.Report {
    /// Column headings: tables with the same headings are drawn with the same columns.
    public enum Column {
        public static let time = "Time"
        public static let marker = "Marker"
        public static let pattern = "Pattern"
        public static let note = "Note"
        public static let requirement = "Requirement"
        public static let verdict = "Verdict"
        public static let finding = "Finding"
        public static let about = "About"
        public static let connections = "Connections"
        public static let flowIDs = "Flow ids"
        public static let reason = "Why it could not look"
        public static let host = "Host"
        public static let nameFrom = "Name"
        public static let version = "Version"
        public static let readFrom = "Read from"
        public static let clientOffered = "The phone offered"
        public static let captureKey = "Key in capture.json"
        public static let packets = "Packets"
        public static let relay = "What the relay did"
        public static let upstreamCertificate = "Server certificate (relay's connection)"
    }

    /// Fact labels.
    public enum Label {
        public static let project = "Project"
        public static let bundleIdentifier = "Bundle identifier"
        public static let release = "Release"
        public static let session = "Session"
        public static let started = "Started"
        public static let ended = "Ended"
        public static let device = "Device"
        public static let phone = "Phone"
        public static let recordedWith = "Recorded with"
        public static let exportedWith = "Exported with"
        public static let exportedAt = "Exported at"
        public static let signedWith = "Signed with"
        public static let timestamp = "Timestamp"
        public static let inspection = "TLS inspection"
        public static let caTrusted = "Local CA trusted"
        public static let caFingerprint = "Local CA SHA-256"
        public static let validationIssuer = "Untrusted issuer SHA-256"
        public static let quicDropped = "UDP/443 dropped"
        public static let upstreamMirror = "Servers that did not verify"
        public static let gatewayResolvers = "Gateway's resolvers"
        public static let notes = "Notes"
        public static let catalogue = "Catalogue"
        public static let document = "Document"
        public static let documentTitle = "Title"
        public static let version = "Version"
        public static let date = "Date"
        public static let sha256 = "SHA-256 of the PDF"
        public static let tlsMinimum = "TLS minimum"
        public static let aspect = "Prüfaspekt"
        public static let testDepth = "Test depth"
        public static let verdict = "Verdict"
        public static let toolCoverage = "Tool coverage"
        public static let against = "Findings against it"
        public static let inSupport = "Findings in its support"
        public static let connections = "Connections"
        public static let behindFinding = "Behind a finding"
        public static let satisfied = "Looked at, nothing to report"
        public static let notAssessed = "Not assessed"
        public static let notApplicable = "Not applicable"
        public static let inAll = "In all"
    }

    /// The recorded phone as the session section names it: which tunnel addresses its traffic
    /// came from and which WireGuard key it was.
    public static func recordedPhone(_ phone: EvidenceSessionDocument.RecordedPhone) -> String {
        "\(phone.name): tunnel addresses \(phone.addresses.joined(separator: ", ")); WireGuard key SHA-256 \(phone.keyFingerprint)"
    }
}
