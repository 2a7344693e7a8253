import Glibc
import TunnelVisionModel

/// Where an accepted connection really came from, asked of conntrack.
///
/// The redirect is a destination NAT, and NAT keeps every reply tuple unique: when the phone
/// reuses a source port while conntrack still remembers an earlier connection from it (to
/// another destination, both redirected to the same listener), the kernel also rewrites the
/// source port. The relay's `getpeername` then answers the rewritten port, while the tap on
/// tv0 saw the phone's own. The conntrack entry holds both: it is found by the tuple the relay
/// sees (its reply direction) and answers the original one. Needs CAP_NET_ADMIN; without it (the
/// relay run alone, unprivileged) the peer stays as the socket says.
final class ConntrackLookup {
    private let socket: Int32

    /// Nil when the kernel's conntrack netlink cannot be opened here.
    init?() {
        let descriptor = Glibc.socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), Self.netlinkNetfilter)
        guard descriptor >= 0 else { return nil }
        // The kernel answers at once; the bound only guards the loop against a lost answer.
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        socket = descriptor
    }

    deinit { close(socket) }

    /// The phone's endpoint before NAT for the connection whose relay side is `local` ← `peer`;
    /// nil when conntrack has no such entry or does not answer.
    func originalSource(local: Endpoint, peer: Endpoint) -> Endpoint? {
        guard local.address.family == peer.address.family else { return nil }
        sequence &+= 1
        let request = Self.request(local: local, peer: peer, sequence: sequence)
        guard request.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, 0) }) == request.count else { return nil }
        var answer = [UInt8](repeating: 0, count: 8192)
        while true {
            let count = answer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            switch Self.parse(ArraySlice(answer[0..<count]), sequence: sequence, family: local.address.family) {
            case .found(let endpoint): return endpoint
            case .notFound: return nil
            case .other: continue
            }
        }
    }

    private var sequence: UInt32 = 0

    static let netlinkNetfilter: Int32 = 12
    static let messageGet: UInt16 = 1 << 8 | 1  // NFNL_SUBSYS_CTNETLINK, IPCTNL_MSG_CT_GET
    static let messageNew: UInt16 = 1 << 8 | 0
    static let messageError: UInt16 = 2
    static let nested: UInt16 = 0x8000
    // CTA_TUPLE_ORIG, CTA_TUPLE_REPLY; inside a tuple CTA_TUPLE_IP, CTA_TUPLE_PROTO; inside those
    // CTA_IP_V4_SRC/DST, CTA_IP_V6_SRC/DST and CTA_PROTO_NUM, CTA_PROTO_SRC_PORT/DST_PORT.
    static let tupleOriginal: UInt16 = 1, tupleReply: UInt16 = 2
    static let tupleIP: UInt16 = 1, tupleProto: UInt16 = 2
    static let v4Source: UInt16 = 1, v4Destination: UInt16 = 2, v6Source: UInt16 = 3, v6Destination: UInt16 = 4
    static let protoNumber: UInt16 = 1, protoSource: UInt16 = 2, protoDestination: UInt16 = 3

    /// One IPCTNL_MSG_CT_GET naming the entry by its reply tuple: from the relay's address and
    /// port to the phone's address and the port the relay sees.
    static func request(local: Endpoint, peer: Endpoint, sequence: UInt32) -> [UInt8] {
        let isV4 = local.address.family == .v4
        func addressBytes(_ address: IPAddress) -> [UInt8] { isV4 ? Array(address.bytes.suffix(4)) : address.bytes }
        let ip = attribute(tupleIP | nested,
                           attribute(isV4 ? v4Source : v6Source, addressBytes(local.address))
                               + attribute(isV4 ? v4Destination : v6Destination, addressBytes(peer.address)))
        let proto = attribute(tupleProto | nested,
                              attribute(protoNumber, [UInt8(IPPROTO_TCP)])
                                  + attribute(protoSource, bigEndian(local.port)) + attribute(protoDestination, bigEndian(peer.port)))
        let body: [UInt8] = [UInt8(isV4 ? AF_INET : AF_INET6), 0, 0, 0] + attribute(tupleReply | nested, ip + proto)
        let length = UInt32(16 + body.count)
        return littleEndian(length) + littleEndian16(messageGet) + littleEndian16(1) + littleEndian(sequence) + littleEndian(UInt32(0)) + body
    }

    enum Answer: Equatable {
        case found(Endpoint)
        case notFound
        /// A message that is not the answer to this request (an earlier one's late answer).
        case other
    }

    /// Reads the kernel's answer: the original tuple's source, or why there is none.
    static func parse(_ bytes: ArraySlice<UInt8>, sequence: UInt32, family: IPAddress.Family) -> Answer {
        var reader = NetlinkReader(bytes)
        guard let length = reader.u32(), let type = reader.u16(), reader.u16() != nil, let answered = reader.u32(), reader.u32() != nil,
              length >= 16, Int(length) <= bytes.count
        else { return .notFound }
        guard answered == sequence else { return .other }
        guard type == messageNew else { return type == messageError ? .notFound : .other }
        let payload = bytes.dropFirst(16).prefix(Int(length) - 16).dropFirst(4)
        guard let tuple = attributes(payload)[tupleOriginal], case let inside = attributes(tuple),
              let ip = inside[tupleIP].map(attributes), let proto = inside[tupleProto].map(attributes),
              let source = ip[family == .v4 ? v4Source : v6Source], let port = proto[protoSource], port.count == 2
        else { return .notFound }
        let address: IPAddress?
        switch family {
        case .v4:
            address = source.count == 4 ? IPAddress(v4: source.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) : nil
        case .v6:
            address = source.count == 16 ? IPAddress(bytes: Array(source)) : nil
        }
        guard let address else { return .notFound }
        return .found(Endpoint(address: address, port: UInt16(port[port.startIndex]) << 8 | UInt16(port[port.startIndex + 1])))
    }

    /// The attributes of one nesting level by type (the nested flag cleared); a torn one ends the list.
    static func attributes(_ bytes: ArraySlice<UInt8>) -> [UInt16: ArraySlice<UInt8>] {
        var result: [UInt16: ArraySlice<UInt8>] = [:]
        var reader = NetlinkReader(bytes)
        while let length = reader.u16(), let type = reader.u16() {
            guard length >= 4, let value = reader.take(Int(length) - 4) else { break }
            result[type & 0x3FFF] = value
            _ = reader.take((4 - Int(length) % 4) % 4)
        }
        return result
    }

    static func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
        let length = 4 + value.count
        return littleEndian16(UInt16(length)) + littleEndian16(type) + value + [UInt8](repeating: 0, count: (4 - length % 4) % 4)
    }

    static func littleEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    static func littleEndian16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func bigEndian(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
}

/// Host-order (little-endian on every machine the daemon runs on) netlink fields, bounds-checked.
private struct NetlinkReader {
    var rest: ArraySlice<UInt8>
    init(_ bytes: ArraySlice<UInt8>) { rest = bytes }

    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, rest.count >= count else { return nil }
        defer { rest = rest.dropFirst(count) }
        return rest.prefix(count)
    }

    mutating func u16() -> UInt16? {
        take(2).map { UInt16($0[$0.startIndex]) | UInt16($0[$0.startIndex + 1]) << 8 }
    }

    mutating func u32() -> UInt32? {
        take(4).map { bytes in bytes.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
    }
}
