import Glibc
import TunnelVisionCaptureFiles

/// The values each number setting accepts, checked when the configuration is read. A new
/// number setting adds its range here and reads through `ConfigurationParser.number`.
public enum NumberRanges {
    public static let snapshotLength: ClosedRange<UInt32> = 64...PcapFormat.defaultSnapshotLength
    /// Up to 1 TiB a file: the capture files' offsets and sizes stay far from overflow.
    public static let rotationBytes: ClosedRange<UInt64> = 4096...(1 << 40)
    /// Up to a century: the retention cut-off stays an instant the history can hold.
    public static let keepDays: ClosedRange<Int> = 1...36_500
    /// Up to 1 EiB.
    public static let keepBytes: ClosedRange<UInt64> = 1...(1 << 60)
    public static let mtu: ClosedRange<Int> = 576...65_535
    public static let queuePackets: ClosedRange<Int> = 64...65_536
    /// How long a packet may wait for a recorder slot: at least a millisecond, at most 10 s, which
    /// is already longer than a phone's TCP waits before it retransmits.
    public static let recorderWaitMilliseconds: ClosedRange<Int> = 1...10_000
    /// A TCP or UDP port (the relay's own).
    public static let port: ClosedRange<UInt16> = 1...65_535
    /// Seconds the relay waits for a phone's ClientHello: long enough for a slow phone's first
    /// segment, short enough that a held connection does not linger.
    public static let relayHoldSeconds: ClosedRange<Int> = 1...300
    /// Seconds the relay's two TLS handshakes may take.
    public static let relayHandshakeSeconds: ClosedRange<Int> = 1...300
    /// Seconds an established or spliced connection may stay silent: up to a day.
    public static let relayIdleSeconds: ClosedRange<Int> = 1...86_400
    /// Relay connections one phone holds at once before the relay splices its next ones.
    public static let relayConnectionsPerPhone: ClosedRange<Int> = 1...65_536
    /// Descriptors kept from the relay for the recorder, the history and the TUN device.
    public static let descriptorReserve: ClosedRange<Int> = 64...65_536
}

/// The configuration file as the daemon opens it.
public enum ConfigurationFile {
    /// The file's bytes; nil when there is no such file. A FIFO or a device is refused rather
    /// than opened (opening a FIFO blocks until a writer comes).
    public static func read(_ path: String) throws(ConfigurationError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw .unreadableFile(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadableFile(path: path, reason: String(cString: strerror(errno))) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .notARegularFile(path: path) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw .unreadableFile(path: path, reason: String(cString: strerror(errno)))
            }
            // A configuration is a few hundred bytes; a huge file is a mistake, not a setting.
            guard bytes.count + count <= 1 << 20 else { throw .unreadableFile(path: path, reason: "larger than 1 MiB") }
            bytes += chunk[..<count]
        }
    }
}
