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

    public static func instant(_ instant: Instant) -> String {
        EvidenceUTCStamp(instant).readable + " UTC"
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
            return "The passive tap (\(drops.input), capture session \(drops.captureRun)) recorded in this session's span, "
                + "and libpcap counted no packet dropped by the kernel or the interface over that capture session."
        }
        return "The passive tap (\(drops.input), capture session \(drops.captureRun)) recorded in this session's span: "
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
        public static let sentAt = "Sent at"
        public static let method = "Method"
        public static let bodyBytes = "Body bytes"
        public static let flow = "Flow"
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
