import TunnelVisionModel

/// What a session declares about its recording, as far as a Linux gateway can know it: the test phone is not the machine
/// tvctl runs on, so the technician declares its model, its OS and whether it trusts the CA;
/// the tool version is this build's; inspection is what the daemon's settings say.
public struct RecordingConditions: Sendable, Hashable {
    public let deviceModel: String
    public let osVersion: String
    public let caTrusted: Bool
    /// Where the CA was declared installed (`--ca-trusted STORE`).
    public let caStore: CATrustStore?
    /// `--keep-keys`: store the TLS secrets of the connections the relay terminates for this
    /// recording; they are kept only while it inspects.
    public var keepKeys = false
    /// `--keep-request-paths`: store the paths of the requests the relay reads for this
    /// recording; kept only while it inspects.
    public var keepRequestPaths = false

    public init(deviceModel: String, osVersion: String, caTrusted: Bool, caStore: CATrustStore? = nil, keepKeys: Bool = false) {
        self.deviceModel = deviceModel
        self.osVersion = osVersion
        self.caTrusted = caTrusted
        self.caStore = caStore
        self.keepKeys = keepKeys
    }

    /// `toolVersion` is the running build's (`Invocation.toolVersion`).
    public func environment(toolVersion: String) -> AuditEnvironment {
        AuditEnvironment(deviceModel: deviceModel, osVersion: osVersion, toolVersion: toolVersion)
    }

    /// Inspection is on only when the running daemon's relay has a CA loaded: the
    /// configuration alone proves nothing. The session keeps that CA's fingerprint, so the
    /// declaration "CA trusted" names which CA, and the UDP/443 drop when it is in force.
    /// Settings that could not be read, or a silent daemon, count as inspection off. A relay that
    /// inspects presents the installed CA's leaves unless `--inspection` asks for another mode;
    /// a mode that inspects is refused while nothing could present it.
    public func inspection(
        daemonSettings: DaemonSettings?, daemonRunning: Bool, requested: InspectionMode? = nil
    ) throws(ControlError) -> InspectionConditions {
        let fingerprint = daemonRunning ? daemonSettings?.inspectingCAFingerprint : nil
        if let requested, requested.inspects, fingerprint == nil { throw .refusal(.inspectionModeUnavailable(requested)) }
        if caTrusted, fingerprint == nil { throw .refusal(.caTrustedWithoutInspection) }
        let mode = requested ?? (fingerprint != nil ? .pinning : .off)
        return InspectionConditions(
            mode: mode, caTrusted: caTrusted, caFingerprint: mode.inspects ? fingerprint : nil,
            quicDropped: mode.inspects && daemonSettings?.dropsQUIC == true, keepsKeys: mode.inspects && keepKeys,
            upstreamMirror: mode.inspects ? daemonSettings?.upstreamMirror : nil, caStore: caStore,
            keepsRequestPaths: mode.inspects && keepRequestPaths)
    }
}
