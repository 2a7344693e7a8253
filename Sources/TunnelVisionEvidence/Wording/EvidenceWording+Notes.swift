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

        /// flows.json: how its readings are to be taken.
        public static let flowsContents =
            "Every reading is what crossed the tunnel, as it was parsed: nothing was validated, certificates included. "
            + "A TLS reading whose source is upstreamConnection was negotiated by the tunnel's own connection to the "
            + "server while it inspected the connection; it answers the tunnel's ClientHello, not the app's."

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

        /// capture.json: how to read a packet's comment.
        public static let packetComments =
            "Each packet carries a comment naming its connection (flow=, the id in flows.json) and that connection's "
            + "findings (findings=, the ids in findings.json), and its direction: outbound is what the phone sent."
    }
}
