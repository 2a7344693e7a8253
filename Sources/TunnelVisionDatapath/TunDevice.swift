import Foundation

/// Why the TUN device could not be had.
public enum TunDeviceError: Error, Sendable, Hashable {
    case cannotOpenClonePath(errno: Int32)
    case cannotAttach(name: String, errno: Int32)
    case cannotBringUp(name: String, errno: Int32)
}

/// The daemon's TUN device: raw IPv4 and IPv6 packets without a packet-information prefix.
/// If the gateway script made it persistent for the daemon's user, attaching needs no
/// privilege; otherwise the daemon creates it and brings it up itself.
///
/// With segmentation offload the kernel hands over TCP segments as it holds them — up to 64 KiB,
/// not yet cut to the MTU — each behind a 10-byte virtio-net header that must go back with it.
/// One read then moves what would be dozens of packets, which is what lets the tap keep up with
/// the kernel. The recorder cuts each such super-packet by that header into the segments the wire
/// carried, checksums computed (`OffloadedPacket`), so the capture is the same as without offload.
public final class TunDevice {
    public let name: String
    public let descriptor: Int32
    /// Bytes before each packet in a read or write: the virtio-net header, or none.
    public let headerLength: Int

    private static let setInterface: UInt = 0x4004_54CA  // TUNSETIFF = _IOW('T', 202, int)
    private static let tunMode: Int16 = 0x0001           // IFF_TUN
    private static let noPacketInformation: Int16 = 0x1000  // IFF_NO_PI
    private static let virtioHeader: Int16 = 0x4000  // IFF_VNET_HDR
    private static let setOffload: UInt = 0x4004_54D0  // TUNSETOFFLOAD = _IOW('T', 208, unsigned int)
    private static let checksumAndTCPSegmentation: CInt = 0x01 | 0x02 | 0x04  // TUN_F_CSUM | TSO4 | TSO6
    package static let virtioHeaderLength = 10

    public init(name: String, segmentationOffload: Bool) throws(TunDeviceError) {
        let descriptor = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotOpenClonePath(errno: errno) }
        var request = InterfaceRequest(name: name)
        request.setShort(Self.tunMode | Self.noPacketInformation | (segmentationOffload ? Self.virtioHeader : 0))
        let attached = request.withPointer { ioctl(descriptor, Self.setInterface, $0) }
        guard attached == 0 else {
            let code = errno
            close(descriptor)
            throw .cannotAttach(name: name, errno: code)
        }
        if segmentationOffload, ioctl(descriptor, Self.setOffload, Self.checksumAndTCPSegmentation) != 0 {
            let code = errno
            close(descriptor)
            throw .cannotAttach(name: name, errno: code)
        }
        self.name = name
        self.descriptor = descriptor
        headerLength = segmentationOffload ? Self.virtioHeaderLength : 0
        do { try bringUp() } catch {
            close(descriptor)
            throw error
        }
    }

    deinit { close(descriptor) }

    private func bringUp() throws(TunDeviceError) {
        let control = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard control >= 0 else { throw .cannotBringUp(name: name, errno: errno) }
        defer { close(control) }
        var request = InterfaceRequest(name: name)
        guard request.withPointer({ ioctl(control, UInt(SIOCGIFFLAGS), $0) }) == 0 else { throw .cannotBringUp(name: name, errno: errno) }
        let flags = request.short
        if flags & Int16(IFF_UP) != 0 { return }
        request.setShort(flags | Int16(IFF_UP))
        guard request.withPointer({ ioctl(control, UInt(SIOCSIFFLAGS), $0) }) == 0 else { throw .cannotBringUp(name: name, errno: errno) }
    }
}

/// `struct ifreq` as bytes: 16 for the name, then the union whose first member is a short.
struct InterfaceRequest {
    private var bytes = [UInt8](repeating: 0, count: 40)

    init(name: String) {
        for (index, byte) in name.utf8.prefix(15).enumerated() { bytes[index] = byte }
    }

    var short: Int16 { Int16(bitPattern: UInt16(bytes[16]) | UInt16(bytes[17]) << 8) }

    mutating func setShort(_ value: Int16) {
        let bits = UInt16(bitPattern: value)
        bytes[16] = UInt8(truncatingIfNeeded: bits)
        bytes[17] = UInt8(truncatingIfNeeded: bits >> 8)
    }

    mutating func withPointer(_ body: (UnsafeMutableRawPointer) -> Int32) -> Int32 {
        bytes.withUnsafeMutableBytes { buffer in buffer.baseAddress.map(body) ?? -1 }
    }
}
