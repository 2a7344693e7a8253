import CaptureTestSupport
import Foundation
import Testing
@testable import TunnelVisionDaemon

/// A datagram socket standing where systemd's notify socket would.
private final class NotifySocket {
    let descriptor: Int32
    let name: String

    /// `name` is a path, or `@…` for an abstract socket.
    init(name: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        self.name = name
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(name.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { target in
            for (index, byte) in bytes.enumerated() { target[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    func receive() -> String? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        return count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self) : nil
    }
}

@Suite struct ServiceManagerNotifierTests {
    @Test func readyAndWatchdogReachAPathSocket() throws {
        let directory = try TemporaryDirectory()
        let socket = try NotifySocket(name: directory.file("notify"))
        let notifier = ServiceManagerNotifier(environment: ["NOTIFY_SOCKET": socket.name])
        notifier.ready()
        notifier.watchdog()
        #expect(socket.receive() == "READY=1")
        #expect(socket.receive() == "WATCHDOG=1")
    }

    @Test func anAbstractSocketIsNamedWithAnAt() throws {
        let socket = try NotifySocket(name: "@tunnelvision-test-\(getpid())")
        ServiceManagerNotifier(environment: ["NOTIFY_SOCKET": socket.name]).stopping()
        #expect(socket.receive() == "STOPPING=1")
    }

    @Test func withoutSystemdNothingIsSent() {
        #expect(!ServiceManagerNotifier(environment: [:]).send("READY=1"))
        #expect(!ServiceManagerNotifier(environment: ["NOTIFY_SOCKET": ""]).send("READY=1"))
    }
}
