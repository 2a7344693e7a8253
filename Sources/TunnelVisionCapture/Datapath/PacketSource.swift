/// A live input thread's body: the inline TUN tap or the passive interface tap. `run()` returns
/// after `stop()`.
public protocol PacketSource: AnyObject, Sendable {
    func run()
    func stop()
}

extension TunForwarder: PacketSource {}
extension InterfaceTap: PacketSource {}
