import CPcap
import TunnelVisionWire

/// Reads a pcap or pcapng file through libpcap, one packet at a time, with nanosecond stamps.
/// The frame handed to the caller is borrowed from libpcap and valid only during the call.
public final class CaptureImportReader {
    public enum OpenError: Error, Equatable, CustomStringConvertible {
        /// libpcap could not read the file as pcap or pcapng; its own words say why.
        case unreadable(path: String, reason: String)
        /// The file's link type is not one the engine reads (raw IP, Ethernet, Linux cooked, BSD loopback).
        case unsupportedLinkType(path: String, linkType: UInt32)

        public var description: String {
            switch self {
            case .unreadable(let path, let reason):
                "cannot read \(path) as a pcap or pcapng capture: \(reason)"
            case .unsupportedLinkType(let path, let linkType):
                "\(path) has link type \(linkType); only raw IP, Ethernet, Linux cooked and BSD loopback captures can be read"
            }
        }
    }

    public let path: String
    public let linkType: LinkType
    /// The snapshot length the file declares.
    public let snapshotLength: Int
    private let handle: OpaquePointer

    public init(path: String) throws(OpenError) {
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard let handle = pcap_open_offline_with_tstamp_precision(
            path, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errorBuffer
        ) else {
            throw .unreadable(path: path, reason: String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        let linkType = Self.linkType(ofDLT: pcap_datalink(handle))
        guard LinkType.supported.contains(linkType) else {
            pcap_close(handle)
            throw .unsupportedLinkType(path: path, linkType: linkType.rawValue)
        }
        self.path = path
        self.handle = handle
        self.linkType = linkType
        self.snapshotLength = Int(pcap_snapshot(handle))
    }

    deinit { pcap_close(handle) }

    /// libpcap answers with its DLT_ values, which equal the file's LINKTYPE_ values except for
    /// raw IP: LINKTYPE_RAW (101) comes back as DLT_RAW, 12 (14 on OpenBSD).
    private static func linkType(ofDLT value: Int32) -> LinkType {
        switch value {
        case 12, 14: .raw
        default: LinkType(rawValue: UInt32(bitPattern: value))
        }
    }

    /// One captured packet: its bytes (borrowed), when, and its length on the wire.
    public struct Packet {
        public let bytes: UnsafeRawBufferPointer
        public let timestampNanoseconds: Int64
        public let wireLength: Int
        /// The record's own header, as the capture file held it (for copying it on).
        public let capturedLength: Int
    }

    /// Calls `body` for every packet until the file ends or `body` answers false.
    /// Returns how many packets were read; a damaged tail ends the reading early.
    @discardableResult
    public func forEachPacket(_ body: (Packet) -> Bool) -> Int {
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        var count = 0
        while pcap_next_ex(handle, &header, &data) == 1, let header, let data {
            count += 1
            let record = header.pointee
            let captured = Int(record.caplen)
            let seconds = Int64(record.ts.tv_sec)
            let nanoseconds = Int64(record.ts.tv_usec)
            let packet = Packet(
                bytes: UnsafeRawBufferPointer(start: data, count: captured),
                timestampNanoseconds: max(seconds, 0) &* 1_000_000_000 &+ nanoseconds,
                wireLength: Int(record.len), capturedLength: captured
            )
            if !body(packet) { break }
        }
        return count
    }
}
