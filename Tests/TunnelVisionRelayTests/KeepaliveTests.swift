import Glibc
import Testing
@testable import TunnelVisionRelay

@Suite("TCP keepalive on the relay's sockets")
struct KeepaliveTests {
    private func option(_ descriptor: Int32, _ level: Int32, _ name: Int32) -> Int32 {
        var value: Int32 = -1
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, level, name, &value, &length)
        return value
    }

    @Test("A socket the relay sets up probes a silent peer after 60 s, six times 10 s apart")
    func keepaliveIsOn() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        #expect(option(descriptor, SOL_SOCKET, SO_KEEPALIVE) == 0)
        Sockets.setKeepalive(descriptor)
        #expect(option(descriptor, SOL_SOCKET, SO_KEEPALIVE) == 1)
        #expect(option(descriptor, Int32(IPPROTO_TCP), TCP_KEEPIDLE) == 60)
        #expect(option(descriptor, Int32(IPPROTO_TCP), TCP_KEEPINTVL) == 10)
        #expect(option(descriptor, Int32(IPPROTO_TCP), TCP_KEEPCNT) == 6)
    }
}
