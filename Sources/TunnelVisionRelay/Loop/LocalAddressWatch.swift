import Glibc
import TunnelVisionModel

/// The gateway's own addresses for every dial, read again only when they changed: a netlink
/// socket subscribed to address changes is opened before the first reading, so that an address
/// added or removed since then has left a message in it, and each dial first drains it (one
/// `recv` that usually finds nothing, where a full reading is a netlink dump of every address).
/// Without the socket, or when its messages overflowed, every dial reads them all as before.
/// Touched only on the loop's thread.
final class LocalAddressWatch {
    private let socket: Int32
    private var addresses: Set<IPAddress> = []
    private var isCurrent = false

    init() {
        socket = Self.subscribe()
    }

    deinit {
        if socket >= 0 { close(socket) }
    }

    func current() -> Set<IPAddress> {
        if changedSinceLastReading() || !isCurrent {
            addresses = LocalAddresses.current()
            isCurrent = socket >= 0
        }
        return addresses
    }

    /// Drains the subscription: true when anything arrived, or when it cannot tell.
    private func changedSinceLastReading() -> Bool {
        guard socket >= 0 else { return true }
        var changed = false
        while true {
            // MSG_TRUNC: each message is dropped unread; that one came is all that matters.
            let result = recv(socket, nil, 0, Int32(MSG_DONTWAIT | MSG_TRUNC))
            if result >= 0 {
                changed = true
                continue
            }
            if errno == EINTR { continue }
            // ENOBUFS: messages were dropped; anything else: the socket cannot be trusted.
            return changed || (errno != EAGAIN && errno != EWOULDBLOCK)
        }
    }

    // linux/netlink.h and linux/rtnetlink.h, which Glibc's module does not bring.
    static let netlinkRoute: Int32 = 0
    static let solNetlink: Int32 = 270
    static let addMembership: Int32 = 1
    /// RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR.
    static let addressGroups: [Int32] = [5, 9]

    private static func subscribe() -> Int32 {
        let descriptor = Glibc.socket(
            AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), netlinkRoute)
        guard descriptor >= 0 else { return -1 }
        for var group in addressGroups {
            guard setsockopt(descriptor, solNetlink, addMembership, &group, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                close(descriptor)
                return -1
            }
        }
        return descriptor
    }
}
