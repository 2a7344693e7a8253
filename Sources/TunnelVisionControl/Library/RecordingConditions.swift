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

    public var environment: AuditEnvironment {
        AuditEnvironment(deviceModel: deviceModel, osVersion: osVersion, toolVersion: TunnelVisionBuild.version)
    }

    /// Settings that could not be read count as inspection off, which is what the daemon does.
    /// A daemon that inspects presents the installed CA's leaves unless another mode is asked for.
    public func inspection(daemonSettings: DaemonSettings?) -> InspectionConditions {
        InspectionConditions(inspectionEnabled: daemonSettings?.inspectionEnabled ?? false, caTrusted: caTrusted)
    }

    /// The mode asked for at `session start --inspection`, refused when it needs a daemon that
    /// does not inspect: a recording never says it presented what nothing presented.
    public func inspection(daemonSettings: DaemonSettings?, requested: InspectionMode?) throws(ControlError) -> InspectionConditions {
        let derived = inspection(daemonSettings: daemonSettings)
        guard let requested else { return derived }
        if requested.inspects && !derived.inspectionEnabled { throw .refusal(.inspectionModeUnavailable(requested)) }
        return InspectionConditions(mode: requested, caTrusted: caTrusted)
    }
}
