import TunnelVisionModel

/// What a session declares about its recording, as far as a Linux gateway can know it: the test phone is not the machine
/// tvctl runs on, so the technician declares its model, its OS and whether it trusts the CA;
/// the tool version is this build's; inspection is what the daemon's settings say.
public struct RecordingConditions: Sendable, Hashable {
    public let deviceModel: String
    public let osVersion: String
    public let caTrusted: Bool

    public init(deviceModel: String, osVersion: String, caTrusted: Bool) {
        self.deviceModel = deviceModel
        self.osVersion = osVersion
        self.caTrusted = caTrusted
    }

    /// `toolVersion` is the running build's (`Invocation.toolVersion`).
    public func environment(toolVersion: String) -> AuditEnvironment {
        AuditEnvironment(deviceModel: deviceModel, osVersion: osVersion, toolVersion: toolVersion)
    }

    /// Settings that could not be read count as inspection off, which is what the daemon does.
    public func inspection(daemonSettings: DaemonSettings?) -> InspectionConditions {
        InspectionConditions(inspectionEnabled: daemonSettings?.inspectionEnabled ?? false, caTrusted: caTrusted)
    }
}
