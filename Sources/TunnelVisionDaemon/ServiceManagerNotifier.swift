import Foundation

/// Tells systemd how the service is doing over `$NOTIFY_SOCKET` (sd_notify's datagram
/// protocol), without linking libsystemd. Silent when not started by systemd. The watchdog is
/// fed with each heartbeat, once a second, well inside the unit's WatchdogSec.
public struct ServiceManagerNotifier: Sendable {
    private let socketPath: String?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    public func ready() { send("READY=1") }
    public func watchdog() { send("WATCHDOG=1") }
    public func stopping() { send("STOPPING=1") }
    public func status(_ text: String) { send("STATUS=" + text) }

    @discardableResult
    func send(_ message: String) -> Bool {
        guard let path = socketPath, path.utf8.count < 108 else { return false }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        // A leading '@' names an abstract socket: its first byte on the wire is NUL.
        var pathBytes = Array(path.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { target in
            for (index, byte) in pathBytes.enumerated() where index < target.count { target[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count)
        let sent = message.utf8CString.withUnsafeBufferPointer { text in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, text.baseAddress, text.count - 1, 0, $0, length)
                }
            }
        }
        return sent >= 0
    }
}
