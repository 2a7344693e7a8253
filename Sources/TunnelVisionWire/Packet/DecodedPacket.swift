import TunnelVisionModel

/// One captured frame read down to its transport: the 5-tuple, TCP's sequence state, and the
/// transport payload as a view into the frame. Nothing is copied.
public struct DecodedPacket {
    public let ip: IPPacket
    public let sourcePort: UInt16
    public let destinationPort: UInt16
    /// Present for a TCP segment that carried its header.
    public let tcp: TCPSegment?
    /// The transport payload (UDP data, TCP data, ICMP body); empty for a later fragment.
    public let payload: UnsafeRawBufferPointer

    public var transport: TransportProtocol { ip.transport }
    public var source: Endpoint { Endpoint(address: ip.source, port: sourcePort) }
    public var destination: Endpoint { Endpoint(address: ip.destination, port: destinationPort) }

    /// Reads a frame; nil when it carries no IPv4/IPv6 packet that can be read.
    public init?(frame: UnsafeRawBufferPointer, linkType: LinkType) {
        guard let network = linkType.networkPayload(of: frame), let ip = IPPacket(network) else { return nil }
        self.init(ip: ip)
    }

    public init?(ip: IPPacket) {
        self.ip = ip
        if ip.isLaterFragment {
            // The transport header travelled in the first fragment; the caller may know its ports.
            sourcePort = 0
            destinationPort = 0
            tcp = nil
            payload = UnsafeRawBufferPointer(rebasing: ip.payload[0..<0])
            return
        }
        switch ip.transport {
        case .tcp:
            guard let segment = TCPSegment(ip.payload) else { return nil }
            sourcePort = segment.sourcePort
            destinationPort = segment.destinationPort
            tcp = segment
            payload = segment.payload
        case .udp:
            guard let datagram = UDPDatagram(ip.payload) else { return nil }
            sourcePort = datagram.sourcePort
            destinationPort = datagram.destinationPort
            tcp = nil
            payload = datagram.payload
        default:
            sourcePort = 0
            destinationPort = 0
            tcp = nil
            payload = ip.payload
        }
    }
}
