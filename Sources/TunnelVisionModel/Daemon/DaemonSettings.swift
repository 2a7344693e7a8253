/// What the daemon runs with, as it publishes it for `tvctl`: one type on both sides, stored as
/// `key = value` pairs so that a field added later is one more line in `fields`, a history
/// written before it reads the field as absent, and a key this version does not know is kept.
public struct DaemonSettings: Sendable, Hashable {
    /// Where the daemon's packets come from (stored as its label, "tun:tv0").
    public var input: CaptureInput?
    /// Whether the daemon inspects TLS; absent or unreadable counts as off (`inspectionEnabled`).
    public var inspection: Bool?
    public var clientInterface: String?
    public var clientNetworks: [IPNetwork]?
    public var uplink: String?
    public var captureDirectory: String?
    public var snapshotLength: UInt32?
    public var rotationBytes: UInt64?
    public var keepDays: Int?
    public var keepBytes: UInt64?
    public var segmentationOffload: Bool?
    /// The relay's listener port and the original destination ports it terminates.
    public var relayPort: UInt16?
    public var inspectedPorts: [UInt16]?
    /// UDP to 443 from the phone is rejected while inspection is on.
    public var quicDrop: Bool?
    /// A server certificate that does not verify is mirrored to the phone (`upstream_mirror`).
    public var upstreamMirror: Bool?
    /// Written only once the relay runs with a CA loaded: what a session may call inspection on.
    public var relayRunning: Bool?
    /// Lower-case hex SHA-256 of the DER of the CA the running relay signs with.
    public var caFingerprint: String?
    /// Where the CA certificate is (group-readable): what `tvctl ca show` prints.
    public var caCertificatePath: String?
    /// The resolver addresses the phone is configured with: the gateway's own, lab infrastructure.
    public var resolvers: [IPAddress]?
    /// What the inline tap does when the recorder has no free slot, and how long a packet waits.
    public var recorderBacklog: RecorderBacklog?
    public var recorderWaitMilliseconds: Int?
    /// Pairs this version cannot read: a key it does not know, or a value out of its form.
    public var unrecognized: [String: String] = [:]

    public init(
        input: CaptureInput? = nil, inspection: Bool? = nil, clientInterface: String? = nil, clientNetworks: [IPNetwork]? = nil,
        uplink: String? = nil, captureDirectory: String? = nil, snapshotLength: UInt32? = nil, rotationBytes: UInt64? = nil,
        keepDays: Int? = nil, keepBytes: UInt64? = nil, segmentationOffload: Bool? = nil,
        relayPort: UInt16? = nil, inspectedPorts: [UInt16]? = nil, quicDrop: Bool? = nil,
        relayRunning: Bool? = nil, caFingerprint: String? = nil, caCertificatePath: String? = nil,
        resolvers: [IPAddress]? = nil, recorderBacklog: RecorderBacklog? = nil, recorderWaitMilliseconds: Int? = nil,
        upstreamMirror: Bool? = nil
    ) {
        self.upstreamMirror = upstreamMirror
        self.input = input
        self.inspection = inspection
        self.clientInterface = clientInterface
        self.clientNetworks = clientNetworks
        self.uplink = uplink
        self.captureDirectory = captureDirectory
        self.snapshotLength = snapshotLength
        self.rotationBytes = rotationBytes
        self.keepDays = keepDays
        self.keepBytes = keepBytes
        self.segmentationOffload = segmentationOffload
        self.relayPort = relayPort
        self.inspectedPorts = inspectedPorts
        self.quicDrop = quicDrop
        self.relayRunning = relayRunning
        self.caFingerprint = caFingerprint
        self.caCertificatePath = caCertificatePath
        self.resolvers = resolvers
        self.recorderBacklog = recorderBacklog
        self.recorderWaitMilliseconds = recorderWaitMilliseconds
    }

    /// Where the daemon keeps the inspection CA unless its configuration says otherwise: a
    /// directory of the daemon's own (0750), outside the group-writable tree of the history,
    /// where no member can rename, replace or add an entry.
    public static let defaultCAKeyPath = "/var/lib/tunnelvision-ca/ca.key"
    public static let defaultCACertificatePath = "/var/lib/tunnelvision-ca/ca.pem"
    /// The installed daemon's user and group (systemd/sysusers.d, the unit's User= and Group=).
    public static let daemonAccount = "tunnelvision"

    /// Settings that could not be read count as inspection off, which is what the daemon does.
    public var inspectionEnabled: Bool { inspection == true }

    /// The CA fingerprint when the relay inspects: configured on, running, and a CA loaded.
    /// Only this lets a session record inspection on.
    public var inspectingCAFingerprint: String? {
        guard inspectionEnabled, relayRunning == true, let caFingerprint, !caFingerprint.isEmpty else { return nil }
        return caFingerprint
    }

    /// The UDP/443 drop is in force only while inspection is.
    public var dropsQUIC: Bool { inspectingCAFingerprint != nil && quicDrop == true }
}

extension DaemonSettings {
    /// One stored key and how its value is written and read back.
    struct Field {
        let key: String
        let write: (DaemonSettings) -> String?
        /// False when the text is not a value of the field's form.
        let read: (inout DaemonSettings, String) -> Bool
    }

    /// The disk format: never rename a key.
    static var fields: [Field] {
        [
            .value("input", \.input),
            .onOff("inspection", \.inspection),
            .value("client_interface", \.clientInterface),
            .list("client_networks", \.clientNetworks),
            .value("uplink", \.uplink),
            .value("captures", \.captureDirectory),
            .value("snaplen", \.snapshotLength),
            .value("rotate_bytes", \.rotationBytes),
            .value("keep_days", \.keepDays),
            .value("keep_bytes", \.keepBytes),
            .onOff("offload", \.segmentationOffload),
            .value("relay_port", \.relayPort),
            .list("inspected_ports", \.inspectedPorts),
            .onOff("quic_drop", \.quicDrop),
            .onOff("upstream_mirror", \.upstreamMirror),
            .onOff("relay_running", \.relayRunning),
            .value("ca_sha256", \.caFingerprint),
            .value("ca_certificate", \.caCertificatePath),
            .list("resolvers", \.resolvers),
            .choice("when_recorder_behind", \.recorderBacklog),
            .value("recorder_wait_ms", \.recorderWaitMilliseconds),
        ]
    }

    /// The pairs as stored: every field that has a value, and the unrecognized pairs as read.
    public var pairs: [String: String] {
        var pairs = unrecognized
        for field in Self.fields {
            if let value = field.write(self) { pairs[field.key] = value }
        }
        return pairs
    }

    public init(pairs: [String: String]) {
        self.init()
        let fields = Dictionary(Self.fields.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        for (key, value) in pairs {
            guard let field = fields[key], field.read(&self, value) else {
                unrecognized[key] = value
                continue
            }
        }
    }
}

extension DaemonSettings.Field {
    /// A text, a number, an input: written as its description, read by its own parser.
    static func value<Value: LosslessStringConvertible>(_ key: String, _ path: WritableKeyPath<DaemonSettings, Value?>) -> Self {
        Self(key: key, write: { $0[keyPath: path]?.description }, read: { settings, text in
            guard let value = Value(text) else { return false }
            settings[keyPath: path] = value
            return true
        })
    }

    static func onOff(_ key: String, _ path: WritableKeyPath<DaemonSettings, Bool?>) -> Self {
        Self(key: key, write: { $0[keyPath: path].map { $0 ? "on" : "off" } }, read: { settings, text in
            switch text {
            case "on": settings[keyPath: path] = true
            case "off": settings[keyPath: path] = false
            default: return false
            }
            return true
        })
    }

    static func choice<Choice: RawRepresentable<String>>(_ key: String, _ path: WritableKeyPath<DaemonSettings, Choice?>) -> Self {
        Self(key: key, write: { $0[keyPath: path]?.rawValue }, read: { settings, text in
            guard let choice = Choice(rawValue: text) else { return false }
            settings[keyPath: path] = choice
            return true
        })
    }

    /// Comma-separated; an empty text is an empty list, and one unreadable item leaves the
    /// whole list unread (kept as written) rather than a shorter list that looks complete.
    static func list<Element: LosslessStringConvertible>(_ key: String, _ path: WritableKeyPath<DaemonSettings, [Element]?>) -> Self {
        Self(key: key, write: { $0[keyPath: path]?.map(\.description).joined(separator: ",") }, read: { settings, text in
            let items = text.isEmpty ? [] : text.split(separator: ",", omittingEmptySubsequences: false).map { Element(String($0)) }
            guard !items.contains(where: { $0 == nil }) else { return false }
            settings[keyPath: path] = items.compactMap { $0 }
            return true
        })
    }
}
