/// An input thread's body: the inline TUN tap, the passive interface tap, or an offline file.
/// `run()` returns after `stop()`, or by itself when the input ends (a file read to its end).
public protocol PacketSource: AnyObject, Sendable {
    func run()
    func stop()
}

extension TunForwarder: PacketSource {}
extension InterfaceTap: PacketSource {}
