import TunnelVisionModel

/// The notes the documents carry for whoever reads them without the tool: each says what the
/// document cannot say by itself.
extension EvidenceWording {
    public enum Note {
        /// session.json: how traffic came to belong to the session — the store tags a flow with
        /// the session open when it is first written, and never re-tags it.
        public static let attribution =
            "A connection belongs to this session when it was first written to the history while the session was open, "
            + "or when it was still active and written again during it. The tag is never changed afterwards. "
            + "Traffic of every app on the phone crossed the tunnel: the session holds what the phone sent and received "
            + "while it was open, not only the audited app's."

        /// session.json of a phone's recording: the same rule, for that phone's traffic alone.
        public static func attribution(phone: String, addresses: [String]) -> String {
            "A connection belongs to this session when its phone end is one of the tunnel addresses of phone \(phone) "
                + "(\(addresses.joined(separator: ", "))) and it was first written to the history while the session was open, "
                + "or was still active and written again during it. The tag is never changed afterwards. No other phone's "
                + "traffic, and none of the gateway's own, belongs to it. Traffic of every app on that phone crossed the "
                + "tunnel: the session holds what the phone sent and received while it was open, not only the audited app's."
        }

        /// session.json and the report: who signed the manifest, and what that proves; or that nobody did.
        public static func signature(keyID: String?) -> String {
            guard let keyID else {
                return "The bundle is not signed: the gateway that exported it had no signing key, so nothing in it shows "
                    + "which gateway made it; manifest.json shows only that its files agree with each other."
            }
            return "manifest.json is signed with the gateway key \(keyID) in minisign's format (manifest.json.minisig); "
                + "'minisign -Vm manifest.json -P KEY', with the public key 'tvctl key show' prints on that gateway, checks it, "
                + "and manifest.json holds the SHA-256 of every other file."
        }

        /// session.json and the report: which TSA vouches for the manifest's time, or why none does.
        public static func timestamp(authority: String?, skipped: Bool) -> String {
            guard let authority else {
                return "The bundle has no timestamp: the gateway's configuration names no time-stamping authority (timestamp_url)."
            }
            if skipped {
                return "The bundle has no timestamp: it was exported with --no-timestamp, so the time-stamping authority \(authority) "
                    + "was not asked, and nothing but the gateway's own clock dates it."
            }
            return "The time-stamping authority \(authority) was asked for an RFC 3161 token over the SHA-256 of manifest.json; "
                + "its reply is manifest.json.tsr, and the instant it vouches for is in the reply, since this file is listed in the manifest "
                + "it covers ('openssl ts -reply -in manifest.json.tsr -text' shows it; 'openssl ts -verify -data manifest.json "
                + "-in manifest.json.tsr -CAfile CHAIN' checks it)."
        }

        /// session.json: what the bundle does not hold, and whether it holds the key log.
        public static func notIncluded(keyLog: EvidenceKeyLog) -> String {
            let keys: String
            if keyLog.included {
                keys = keyLog.flows == 0
                    ? "It was exported with keys, but the history held no TLS secrets of the relay for this session, so capture.pcapng carries none. "
                    : "It was exported with keys: capture.pcapng begins with the TLS secrets of the \(keyLog.flows) connections the relay terminated "
                        + "(phone to relay), with which Wireshark decrypts what those connections carried. "
            } else {
                keys = "It holds no TLS secrets: it was exported without keys, so what inspected connections carried cannot be decrypted from it. "
            }
            return "The bundle holds no decrypted content: TLS inspection reads handshakes and their outcome, and the tool "
                + "never writes what a connection carried. " + keys
                + "It holds no comparison with another session, and no traffic outside this session."
        }

        /// session.json: why DNS with the gateway's resolver is neither a finding nor unnamed.
        public static let labInfrastructure =
            "The resolvers in gatewayResolvers are the gateway's own, which the phone is configured to ask: lab "
            + "infrastructure. A DNS exchange with one of them on port 53 is not assessed by the destination check, since "
            + "where the names it asked for led is judged on the connections that followed, and the encryption check does "
            + "not apply to it: the lab's own DNS is in the clear by design. DNS to any other resolver is a finding of "
            + "both checks."

        /// flows.json: how its readings are to be taken.
        public static let flowsContents =
            "Every reading is what crossed the tunnel, as it was parsed: nothing was validated, certificates included. "
            + "A TLS reading whose source is upstreamConnection was negotiated by the tunnel's own connection to the "
            + "server while it inspected the connection; it answers the tunnel's ClientHello, not the phone's."

        /// findings.json: what a verdict is and is not.
        public static let verdicts =
            "A verdict says what the recorded traffic showed about a requirement, bounded by the tool coverage written "
            + "beside it. It is not a test result of the document (PASS, INCONCLUSIVE, FAIL, N/A): that result is the "
            + "assessor's to give and to justify."

        /// capture.json: what the capture holds.
        public static let captureContents =
            "capture.pcapng holds the packets of this session's connections as they crossed the tunnel, copied from the "
            + "rotated capture files: the wire, not decrypted content. A packet the history holds without bytes is "
            + "counted under withoutBytes with its reason."

        /// capture.json: the cut at the session's end.
        public static let packetsAfterEnd =
            "The bundle holds the session up to its end: a connection that went on after it is cut there, in "
            + "capture.pcapng and in flows.json's counts alike, so that every export of the session holds the same evidence. "
            + "packetsAfterEnd counts the packets of its connections that came later, as the history held them at the export."

        /// capture.json: what captureChain states.
        public static let captureChain =
            "captureChain lists the capture files these packets were copied from. A sealed file's size and SHA-256 were "
            + "fixed by the capture daemon when it finished the file (origin written: over the bytes as it wrote them; "
            + "recovered: read from the file at the next start after a run that did not finish it), in a link that holds "
            + "the SHA-256 of the link before it and is signed with the daemon's Ed25519 key (publicKey), which only the "
            + "daemon's user can read; the export checked each sealed file against its link before copying a byte. An unsealed "
            + "file was still being written when the export ran, or was finished before the daemon sealed files: nothing "
            + "fixes its digest. Each link's signature is over its lines 'tunnelvision capture seal 1', 'position N', "
            + "'sequence N', 'file NAME', 'bytes N', 'sha256 HEX', 'origin WORD', 'sealed SECONDS', 'previous HEX', each "
            + "ending in a line feed; previous is the SHA-256 of that text of the link before (64 zeros for the first)."

        /// capture.json: what passiveTapDrops counts.
        public static let passiveTapDrops =
            "passiveTapDrops lists each capture session of the passive tap (libpcap on an interface) that overlaps this session, "
            + "with the packets libpcap counted as dropped over the whole of that capture session: by the kernel, whose capture "
            + "buffer was full (kernelDropped), and by the interface or its driver (interfaceDropped). Those packets never reached "
            + "the tap: they have neither a row nor bytes, and the capture cannot show which connections they belonged to. "
            + "libpcap counts per capture session, not per minute, so some of them may fall outside this session's span."

        /// capture.json: what packetsWithoutRow counts.
        public static let packetsWithoutRow =
            "packetsWithoutRow counts packets that crossed the tap in the minutes this session spans and that the history "
            + "has no row for, by reason: queueFull (the recorder's queues were full), batchFailed (the history refused "
            + "the batch that held their rows) and daemonStopped (the daemon stopped without a clean stop while they were "
            + "queued or in a batch not yet committed; counted at its next start from the last count the history held, so "
            + "at least this many: packets the tap handed over after that count are not known). They belong to no "
            + "connection of flows.json and are not in capture.pcapng; "
            + "the minute is the history's grain, so a count may include packets just before the start or after the end."

        /// capture.json: how to read a packet's comment.
        public static let packetComments =
            "Each packet carries a comment naming its connection (flow=, the id in flows.json) and that connection's "
            + "findings (findings=, the ids in findings.json), and its direction: outbound is what the phone sent."
    }
}

extension EvidenceWording.Note {
    /// flows.json, a ClientHello that offered 0-RTT: what the wire proved of it. A
    /// server accepts early data only inside its encrypted EncryptedExtensions, so acceptance is
    /// never claimed; a refusal is, where the server's hellos prove it.
    public static func earlyData(_ reading: EarlyDataReading) -> String {
        let sending = reading.wasSent
            ? "The phone offered 0-RTT early data and sent it. "
            : "The phone offered 0-RTT early data; sending it was not seen. "
        switch reading.serverAnswer {
        case .notVisible?:
            return sending + "The server resumed the session with the key that allows early data; whether it accepted "
                + "the early data is not visible, because it says so only in its encrypted handshake."
        case .refusedByHelloRetryRequest?:
            return sending + "The server refused early data: it answered with a HelloRetryRequest."
        case .refusedByServerHello?:
            return sending + "The server refused early data: its ServerHello did not resume the session with the first key offered."
        case nil:
            return sending + "The server's answer was not read, so whether it took early data is not known."
        }
    }
}
