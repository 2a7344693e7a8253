import TunnelVisionModel

/// The network layer of one packet: addresses, the transport it carries, and where that
/// transport's bytes are. Reads IPv4 and IPv6 (with extension headers); nothing else.
public struct IPPacket {
    public let source: IPAddress
    public let destination: IPAddress
    public let transport: TransportProtocol
    /// The IP packet's own length (header included) as its header states it.
    public let totalLength: Int
    /// What follows the IP headers, cut to the stated length and to what was captured.
    public let payload: UnsafeRawBufferPointer
    /// A fragment other than the first: its payload continues a transport header elsewhere.
    public let isLaterFragment: Bool
    /// Fragment identity (IPv4 identification or IPv6 fragment id), when fragmented.
    public let fragmentIdentifier: UInt32?
    /// Where a fragment's bytes lie in its datagram's payload (0 for an unfragmented packet).
    public let fragmentOffset: Int
    /// A fragment other than the last (IPv4 MF, IPv6 M).
    public let moreFragments: Bool
    /// The capture cut the packet short of the length its header states.
    public let isTruncated: Bool

    public init?(_ bytes: UnsafeRawBufferPointer) {
        guard let first = bytes.first else { return nil }
        switch first >> 4 {
        case 4: self.init(v4: bytes)
        case 6: self.init(v6: bytes)
        default: return nil
        }
    }

    private init?(v4 bytes: UnsafeRawBufferPointer) {
        var reader = ByteReader(bytes)
        guard let versionAndLength = reader.u8() else { return nil }
        let headerLength = Int(versionAndLength & 0x0F) * 4
        guard headerLength >= 20, reader.skip(1), let stated = reader.u16(),
              let identification = reader.u16(), let flagsAndOffset = reader.u16(),
              reader.skip(1), let proto = reader.u8(), reader.skip(2),
              let source = reader.u32(), let destination = reader.u32()
        else { return nil }
        let totalLength = Int(stated)
        guard totalLength >= headerLength, headerLength <= bytes.count else { return nil }
        let end = min(totalLength, bytes.count)
        guard let payload = bytes.slice(from: headerLength, count: end - headerLength) else { return nil }
        let moreFragments = flagsAndOffset & 0x2000 != 0
        let offset = flagsAndOffset & 0x1FFF
        self.source = IPAddress(v4: source)
        self.destination = IPAddress(v4: destination)
        self.transport = TransportProtocol(rawValue: proto)
        self.totalLength = totalLength
        self.payload = payload
        self.isLaterFragment = offset != 0
        self.fragmentIdentifier = moreFragments || offset != 0 ? UInt32(identification) : nil
        self.fragmentOffset = Int(offset) * 8
        self.moreFragments = moreFragments
        self.isTruncated = totalLength > bytes.count
    }

    private static let hopByHop: UInt8 = 0
    private static let routing: UInt8 = 43
    private static let fragment: UInt8 = 44
    private static let authentication: UInt8 = 51
    private static let destinationOptions: UInt8 = 60
    private static let mobility: UInt8 = 135
    /// A chain longer than this is an attack on the parser, not a packet.
    private static let maximumExtensionHeaders = 16

    /// Sixteen bytes as two words, without the allocation a generic byte collection costs.
    private static func v6Address(_ reader: inout ByteReader) -> IPAddress? {
        guard let a = reader.u32(), let b = reader.u32(), let c = reader.u32(), let d = reader.u32() else { return nil }
        return IPAddress(v6High: UInt64(a) << 32 | UInt64(b), low: UInt64(c) << 32 | UInt64(d))
    }

    private init?(v6 bytes: UnsafeRawBufferPointer) {
        var reader = ByteReader(bytes)
        guard reader.skip(4), let payloadLength = reader.u16(), var next = reader.u8(), reader.skip(1),
              let sourceAddress = Self.v6Address(&reader), let destinationAddress = Self.v6Address(&reader)
        else { return nil }
        // A zero payload length is a jumbogram whose real length sits in a hop-by-hop option;
        // what was captured is then the best bound there is.
        let statedEnd = payloadLength == 0 ? bytes.count : 40 + Int(payloadLength)
        guard let packet = bytes.slice(from: 0, count: min(statedEnd, bytes.count)) else { return nil }
        reader = ByteReader(packet)
        reader.skip(40)
        var laterFragment = false
        var fragmentIdentifier: UInt32?
        var fragmentOffset = 0
        var moreFragments = false
        var headers = 0
        walk: while headers < Self.maximumExtensionHeaders {
            headers += 1
            switch next {
            case Self.hopByHop, Self.routing, Self.destinationOptions, Self.mobility:
                guard let following = reader.u8(), let length = reader.u8(),
                      reader.skip(6 + Int(length) * 8) else { return nil }
                next = following
            case Self.authentication:
                guard let following = reader.u8(), let length = reader.u8(),
                      reader.skip(Int(length) * 4 + 6) else { return nil }
                next = following
            case Self.fragment:
                guard let following = reader.u8(), reader.skip(1), let offsetAndFlags = reader.u16(),
                      let identification = reader.u32() else { return nil }
                next = following
                let offset = offsetAndFlags >> 3
                let more = offsetAndFlags & 1 != 0
                laterFragment = offset != 0
                // An atomic fragment (offset 0, no more) is a whole packet (RFC 6946).
                guard offset != 0 || more else { continue walk }
                fragmentIdentifier = identification
                fragmentOffset = Int(offset) * 8
                moreFragments = more
                // What follows is the fragmentable part, offsets count from here: a header inside
                // it is read once the datagram is whole, not from one fragment's bytes.
                break walk
            default:
                break walk
            }
        }
        self.source = sourceAddress
        self.destination = destinationAddress
        self.transport = TransportProtocol(rawValue: next)
        self.totalLength = statedEnd
        self.payload = reader.rest
        self.isLaterFragment = laterFragment
        self.fragmentIdentifier = fragmentIdentifier
        self.fragmentOffset = fragmentOffset
        self.moreFragments = moreFragments
        self.isTruncated = statedEnd > bytes.count
    }
}
