/// A live input thread's body: the inline TUN tap or the passive interface tap. `run()` returns
/// after `stop()`.
public protocol PacketSource: AnyObject, Sendable {
    func run()
    func stop()
    /// Bytes of virtio-net header before each packet it queues whole (a TUN device with
    /// segmentation offload), or 0.
    var virtioHeaderLength: Int { get }
}

extension TunForwarder: PacketSource {}
extension InterfaceTap: PacketSource {
    public var virtioHeaderLength: Int { 0 }
}
