import TunnelVisionModel

/// What an offline import (`tunnelvisiond --read FILE`, read by the daemon's configuration parser)
/// was asked to do. The history is not part of it: the import writes into the one the daemon opened.
public struct OfflineImportRequest: Sendable, Hashable {
    public var capturePath: String
    public var captureDirectory: String
    /// The phone's networks; none: each flow's initiator is the phone.
    public var clientNetworks: [IPNetwork]
    /// Where the copies rotate: the configuration's `rotate_bytes`, as for a live capture.
    public var rotationBytes: UInt64

    public init(capturePath: String, captureDirectory: String, clientNetworks: [IPNetwork], rotationBytes: UInt64 = 64 * 1024 * 1024) {
        self.capturePath = capturePath
        self.captureDirectory = captureDirectory
        self.clientNetworks = clientNetworks
        self.rotationBytes = rotationBytes
    }
}
