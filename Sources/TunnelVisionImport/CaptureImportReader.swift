import CPcap
import TunnelVisionWire

/// Reads a pcap or pcapng file through libpcap, one packet at a time, with nanosecond stamps.
/// The frame handed to the caller is borrowed from libpcap and valid only during the call.
public final class CaptureImportReader {
    public enum OpenError: Error, Equatable, CustomStringConvertible {
        /// libpcap could not read the file as pcap or pcapng; its own words say why.
        case unreadable(path: String, reason: String)
        /// The file's link type is not one the engine reads.
        case unsupportedLinkType(path: String, linkType: UInt32)

        public var description: String {
            switch self {
            case .unreadable(let path, let reason):
                "cannot read \(path) as a pcap or pcapng capture: \(reason)"
            case .unsupportedLinkType(let path, let linkType):
                "\(path) has link type \(linkType); only raw IP, Ethernet, Linux cooked (v1 and v2), BSD and OpenBSD loopback, PPP, Cisco HDLC and Linux NFLOG captures can be read"
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
        /// Nil when the record's stamp is impossible (see `nanoseconds(seconds:nanoseconds:)`).
        public let timestampNanoseconds: Int64?
        public let wireLength: Int
        /// The record's own header, as the capture file held it (for copying it on).
        public let capturedLength: Int
    }

    /// Why the reading of a file stopped before its end.
    public struct ReadError: Error, Equatable {
        /// The number (from 1) of the record libpcap could not read.
        public let packet: Int
        /// libpcap's own words.
        public let reason: String

        /// libpcap reads a pcapng with one link type only and says so on the first interface
        /// description block of another.
        public var isSecondLinkType: Bool { reason.contains("different from the type of the first interface") }
    }

    /// Calls `body` for every packet until the file ends or `body` answers false, and returns
    /// how many packets were read. A record libpcap cannot read (a damaged or truncated file, a
    /// pcapng interface of a second link type) throws: a read that stops early is not an end.
    @discardableResult
    public func forEachPacket(_ body: (Packet) -> Bool) throws(ReadError) -> Int {
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        var count = 0
        while true {
            let result = pcap_next_ex(handle, &header, &data)
            if result == PCAP_ERROR_BREAK { return count }
            guard result == 1, let header, let data else {
                throw ReadError(packet: count + 1, reason: pcap_geterr(handle).map { String(cString: $0) } ?? "unknown error")
            }
            count += 1
            let record = header.pointee
            let captured = Int(record.caplen)
            let packet = Packet(
                bytes: UnsafeRawBufferPointer(start: data, count: captured),
                timestampNanoseconds: Self.nanoseconds(seconds: Int64(record.ts.tv_sec), nanoseconds: Int64(record.ts.tv_usec)),
                wireLength: Int(record.len), capturedLength: captured
            )
            if !body(packet) { return count }
        }
    }

    /// A record's instant, or nil when the file's stamp is not an instant the history can hold
    /// (before 1970 here, past 2262, or a fraction of a second out of range): a mangled stamp
    /// must not become a flow that "began" in 1969.
    static func nanoseconds(seconds: Int64, nanoseconds: Int64) -> Int64? {
        guard (0...9_223_372_035).contains(seconds), (0..<1_000_000_000).contains(nanoseconds) else { return nil }
        return seconds * 1_000_000_000 + nanoseconds
    }
}
