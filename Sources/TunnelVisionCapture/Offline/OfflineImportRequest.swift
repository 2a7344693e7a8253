import TunnelVisionModel

/// What an offline import (`tunnelvisiond --read FILE`, read by the daemon's configuration parser)
/// was asked to do.
public struct OfflineImportRequest: Sendable, Hashable {
    public var capturePath: String
    public var databasePath: String
    public var captureDirectory: String
    /// The phone's networks; none: each flow's initiator is the phone.
    public var clientNetworks: [IPNetwork]

    public init(capturePath: String, databasePath: String, captureDirectory: String, clientNetworks: [IPNetwork]) {
        self.capturePath = capturePath
        self.databasePath = databasePath
        self.captureDirectory = captureDirectory
        self.clientNetworks = clientNetworks
    }
}
