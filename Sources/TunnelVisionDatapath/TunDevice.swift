import Foundation

/// Why the TUN device could not be had.
public enum TunDeviceError: Error, Sendable, Hashable {
    case cannotOpenClonePath(errno: Int32)
    case cannotAttach(name: String, errno: Int32)
    case cannotBringUp(name: String, errno: Int32)
}

/// How the TUN device hands packets over, as the kernel agreed to it.
public enum TunReads: Sendable, Hashable {
    /// With segmentation offload: TCP super-packets, and UDP ones when `udp` (the kernel took
    /// the UDP flags; before Linux 6.2 it refuses them).
    case offload(udp: Bool)
    /// One packet as the wire carries it per read: the configuration turned offload off.
    case plain
    /// One packet per read because the kernel refused the offload flags (`errno` of the refusal).
    case plainRefused(errno: Int32)
}

/// The daemon's TUN device: raw IPv4 and IPv6 packets without a packet-information prefix.
/// If the gateway script made it persistent for the daemon's user, attaching needs no
/// privilege; otherwise the daemon creates it and brings it up itself.
///
/// With segmentation offload the kernel hands over TCP (and UDP) segments as it holds them — up
/// to 64 KiB, not yet cut to the MTU — each behind a 10-byte virtio-net header that must go back
/// with it. One read then moves what would be dozens of packets, which is what lets the tap keep
/// up with the kernel. The recorder cuts each such super-packet by that header into the segments
/// the wire carried, checksums computed (`OffloadedPacket`), so the capture is the same as
/// without offload. A kernel that refuses the flags gets plain reads instead of a daemon that
/// does not start; `reads` says which.
public final class TunDevice {
    public let name: String
    public let descriptor: Int32
    /// Bytes before each packet in a read or write: the virtio-net header, or none.
    public let headerLength: Int
    public let reads: TunReads

    private static let setInterface: UInt = 0x4004_54CA  // TUNSETIFF = _IOW('T', 202, int)
    private static let tunMode: Int16 = 0x0001           // IFF_TUN
    private static let noPacketInformation: Int16 = 0x1000  // IFF_NO_PI
    private static let virtioHeader: Int16 = 0x4000  // IFF_VNET_HDR
    private static let setOffload: UInt = 0x4004_54D0  // TUNSETOFFLOAD = _IOW('T', 208, unsigned int)
    /// TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6, then TUN_F_USO4 | TUN_F_USO6 (Linux 6.2).
    private static let checksumAndTCPSegmentation: UInt32 = 0x01 | 0x02 | 0x04
    private static let udpSegmentation: UInt32 = 0x20 | 0x40
    /// The offload flag sets asked for in turn, richest first; the first the kernel takes is used.
    package static let offloadAttempts = [checksumAndTCPSegmentation | udpSegmentation, checksumAndTCPSegmentation]
    package static let virtioHeaderLength = 10

    public convenience init(name: String, segmentationOffload: Bool) throws(TunDeviceError) {
        try self.init(name: name, offloadAttempts: segmentationOffload ? Self.offloadAttempts : [])
    }

    /// `offloadAttempts` empty: plain reads. Otherwise each set of TUNSETOFFLOAD flags is tried
    /// in turn; when the kernel refuses all of them the device is opened again for plain reads.
    package init(name: String, offloadAttempts: [UInt32]) throws(TunDeviceError) {
        var reads = TunReads.plain
        var descriptor: Int32 = -1
        if !offloadAttempts.isEmpty {
            descriptor = try Self.attach(name: name, virtioHeader: true)
            var refusal: Int32 = 0
            for flags in offloadAttempts {
                if ioctl(descriptor, Self.setOffload, CInt(bitPattern: flags)) == 0 {
                    reads = .offload(udp: flags & Self.udpSegmentation != 0)
                    break
                }
                refusal = errno
            }
            if case .plain = reads {
                close(descriptor)
                descriptor = -1
                reads = .plainRefused(errno: refusal)
            }
        }
        if descriptor < 0 { descriptor = try Self.attach(name: name, virtioHeader: false) }
        self.name = name
        self.descriptor = descriptor
        self.reads = reads
        if case .offload = reads { headerLength = Self.virtioHeaderLength } else { headerLength = 0 }
        do { try bringUp() } catch {
            close(descriptor)
            throw error
        }
    }

    private static func attach(name: String, virtioHeader: Bool) throws(TunDeviceError) -> Int32 {
        let descriptor = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotOpenClonePath(errno: errno) }
        var request = InterfaceRequest(name: name)
        request.setShort(Self.tunMode | Self.noPacketInformation | (virtioHeader ? Self.virtioHeader : 0))
        guard request.withPointer({ ioctl(descriptor, Self.setInterface, $0) }) == 0 else {
            let code = errno
            close(descriptor)
            throw .cannotAttach(name: name, errno: code)
        }
        return descriptor
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
