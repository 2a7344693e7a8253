import TunnelVisionModel

/// What an offline import (`tunnelvisiond --read FILE`, read by the daemon's configuration parser)
/// was asked to do. The history is not part of it: the import writes into the one the daemon opened.
public struct OfflineImportRequest: Sendable, Hashable {
    public var capturePath: String
    public var captureDirectory: String
    /// The phone's networks; none: each flow's initiator is the phone.
    public var clientNetworks: [IPNetwork]

    public init(capturePath: String, captureDirectory: String, clientNetworks: [IPNetwork]) {
        self.capturePath = capturePath
        self.captureDirectory = captureDirectory
        self.clientNetworks = clientNetworks
    }
}
