import Glibc
import TunnelVisionModel

/// The socket calls of the relay, each non-blocking and answering errno instead of trapping.
enum Sockets {
    static func endpoint(of storage: sockaddr_storage) -> Endpoint? {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafeBytes(of: &storage) { raw in
                let address = raw.load(as: sockaddr_in.self)
                let value = UInt32(bigEndian: address.sin_addr.s_addr)
                return Endpoint(address: IPAddress(v4: value), port: UInt16(bigEndian: address.sin_port))
            }
        case AF_INET6:
            return withUnsafeBytes(of: &storage) { raw in
                let address = raw.load(as: sockaddr_in6.self)
                let bytes = withUnsafeBytes(of: address.sin6_addr) { Array($0) }
                guard let ip = IPAddress(bytes: bytes) else { return nil }
                // A v4-mapped address stays as it came: the listeners are IPv6-only, so such a
                // destination came in an IPv6 packet (the flow the tap keys), and dialling it
                // would reach IPv4 (the gateway's loopback too); the destination policy refuses it.
                return Endpoint(address: ip, port: UInt16(bigEndian: address.sin6_port))
            }
        default:
            return nil
        }
    }

    static func storage(for endpoint: Endpoint) -> (sockaddr_storage, socklen_t) {
        var storage = sockaddr_storage()
        let length: socklen_t
        switch endpoint.address.family {
        case .v4:
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = endpoint.port.bigEndian
            address.sin_addr.s_addr = UInt32(truncatingIfNeeded: endpoint.address.low).bigEndian
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in.self) }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        case .v6:
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = endpoint.port.bigEndian
            let bytes = endpoint.address.bytes
            withUnsafeMutableBytes(of: &address.sin6_addr) { raw in
                for index in 0..<16 { raw[index] = bytes[index] }
            }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in6.self) }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
        return (storage, length)
    }

    static func peer(of descriptor: Int32) -> Endpoint? {
        address(of: descriptor) { getpeername($0, $1, $2) }
    }

    static func local(of descriptor: Int32) -> Endpoint? {
        address(of: descriptor) { getsockname($0, $1, $2) }
    }

    /// getpeername or getsockname: each fills a socket address of the descriptor's.
    private static func address(
        of descriptor: Int32, _ read: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32
    ) -> Endpoint? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { read(descriptor, $0, &length) }
        }
        return result == 0 ? endpoint(of: storage) : nil
    }

    /// Where the phone was going before the nftables redirect (SO_ORIGINAL_DST /
    /// IP6T_SO_ORIGINAL_DST, both option 80); nil when the connection was not redirected.
    static func originalDestination(of descriptor: Int32, family: IPAddress.Family) -> Endpoint? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let level = family == .v4 ? Int32(SOL_IP) : Int32(SOL_IPV6)
        let result = getsockopt(descriptor, level, 80, &storage, &length)
        return result == 0 ? endpoint(of: storage) : nil
    }

    static func setNoDelay(_ descriptor: Int32) {
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// TCP keepalive: a peer that vanished without a FIN (a phone out of range, a server gone)
    /// is found after `idle` seconds of silence and `count` unanswered probes `interval` apart,
    /// and its connection ends instead of holding two descriptors until the idle timeout.
    static let keepalive = (idle: Int32(60), interval: Int32(10), count: Int32(6))

    static func setKeepalive(_ descriptor: Int32) {
        var one: Int32 = 1, idle = keepalive.idle, interval = keepalive.interval, count = keepalive.count
        let size = socklen_t(MemoryLayout<Int32>.size)
        setsockopt(descriptor, SOL_SOCKET, SO_KEEPALIVE, &one, size)
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_KEEPIDLE, &idle, size)
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_KEEPINTVL, &interval, size)
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_KEEPCNT, &count, size)
    }

    /// Closes with a reset (SO_LINGER 0): what a refused upstream becomes for the phone.
    static func reset(_ descriptor: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(descriptor)
    }

    /// Starts a non-blocking connect; answers the descriptor, or errno.
    static func connect(to endpoint: Endpoint, mark: UInt32? = nil) -> Result<Int32, Errno> {
        let family = endpoint.address.family == .v4 ? AF_INET : AF_INET6
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .failure(Errno(errno)) }
        setNoDelay(descriptor)
        setKeepalive(descriptor)
        if var mark, setsockopt(descriptor, SOL_SOCKET, SO_MARK, &mark, socklen_t(MemoryLayout<UInt32>.size)) != 0 {
            let failure = Errno(errno)
            close(descriptor)
            return .failure(failure)
        }
        var (storage, length) = storage(for: endpoint)
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, length) }
        }
        if result == 0 || errno == EINPROGRESS { return .success(descriptor) }
        let failure = Errno(errno)
        close(descriptor)
        return .failure(failure)
    }

    static func pendingError(of descriptor: Int32) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &value, &length)
        return value
    }

    /// A listening socket on every address of one family.
    static func listen(family: IPAddress.Family, port: UInt16) -> Result<Int32, Errno> {
        let descriptor = socket(family == .v4 ? AF_INET : AF_INET6,
                                Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .failure(Errno(errno)) }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if family == .v6 { setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size)) }
        let any = Endpoint(address: family == .v4 ? IPAddress(v4: 0) : IPAddress(v6High: 0, low: 0), port: port)
        var (storage, length) = storage(for: any)
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0, Glibc.listen(descriptor, 1024) == 0 else {
            let failure = Errno(errno)
            close(descriptor)
            return .failure(failure)
        }
        return .success(descriptor)
    }
}

struct Errno: Error, CustomStringConvertible {
    let code: Int32
    init(_ code: Int32) { self.code = code }
    var description: String { String(cString: strerror(code)) }
}

/// The gateway's own addresses, read from getifaddrs. Read again for every dial: an address
/// added a moment ago must be refused too, and one netlink dump costs far less than the TLS
/// handshakes that follow a dial.
enum LocalAddresses {
    static func current() -> Set<IPAddress> {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0 else { return [] }
        defer { freeifaddrs(first) }
        var addresses: Set<IPAddress> = []
        var entry = first
        while let current = entry {
            if let address = current.pointee.ifa_addr {
                let family = Int32(address.pointee.sa_family)
                if family == AF_INET {
                    let value = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
                    addresses.insert(IPAddress(v4: UInt32(bigEndian: value)))
                } else if family == AF_INET6 {
                    let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                        withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                    }
                    if let ip = IPAddress(bytes: bytes) { addresses.insert(ip) }
                }
            }
            entry = current.pointee.ifa_next
        }
        return addresses
    }
}
