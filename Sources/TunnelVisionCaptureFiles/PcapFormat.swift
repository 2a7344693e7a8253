/// The classic pcap layout our capture files use: microsecond timestamps, version 2.4,
/// link type 101 (raw IP, so IPv4 and IPv6 share one file without a pseudo link header).
/// Every field is written little-endian; a reader accepts either byte order because the magic
/// number itself says which one a file was written in.
public enum PcapFormat {
    public static let magic: UInt32 = 0xa1b2_c3d4
    public static let versionMajor: UInt16 = 2
    public static let versionMinor: UInt16 = 4
    public static let rawIPLinkType: UInt32 = 101
    public static let defaultSnapshotLength: UInt32 = 262_144
    public static let fileHeaderLength = 24
    public static let recordHeaderLength = 16

    /// The 24-byte file header for a given snapshot length.
    public static func fileHeader(snapshotLength: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(fileHeaderLength)
        bytes.appendLittleEndian(magic)
        bytes.appendLittleEndian(versionMajor)
        bytes.appendLittleEndian(versionMinor)
        bytes.appendLittleEndian(UInt32(0))  // thiszone: timestamps are UTC
        bytes.appendLittleEndian(UInt32(0))  // sigfigs
        bytes.appendLittleEndian(snapshotLength)
        bytes.appendLittleEndian(rawIPLinkType)
        return bytes
    }

    /// Splits wall-clock nanoseconds into the record's seconds and microseconds. pcap has no
    /// sign, so an instant before the epoch is written as the epoch itself.
    static func recordTimestamp(nanoseconds: Int64) -> (seconds: UInt32, microseconds: UInt32) {
        guard nanoseconds > 0 else { return (0, 0) }
        let microseconds = nanoseconds / 1_000
        let seconds = microseconds / 1_000_000
        return (UInt32(truncatingIfNeeded: seconds), UInt32(microseconds % 1_000_000))
    }
}

/// What a file header says, once read and checked.
public struct PcapFileHeader: Sendable, Hashable {
    public let isByteSwapped: Bool
    public let snapshotLength: UInt32
    public let linkType: UInt32

    /// Reads a header, refusing anything that is not a microsecond raw-IP capture.
    static func parse(_ bytes: some Collection<UInt8>) -> Result<PcapFileHeader, ForeignCaptureReason> {
        let field = Array(bytes.prefix(PcapFormat.fileHeaderLength))
        guard field.count == PcapFormat.fileHeaderLength else { return .failure(.shorterThanHeader) }
        let swapped: Bool
        switch field.littleEndianUInt32(at: 0) {
        case PcapFormat.magic: swapped = false
        case PcapFormat.magic.byteSwapped: swapped = true
        default: return .failure(.unknownMagic)
        }
        let read = { (offset: Int) -> UInt32 in
            let value = field.littleEndianUInt32(at: offset)
            return swapped ? value.byteSwapped : value
        }
        let version = read(4)
        let major = UInt16(truncatingIfNeeded: swapped ? version >> 16 : version)
        guard major == PcapFormat.versionMajor else { return .failure(.unsupportedVersion) }
        let linkType = read(20) & 0x0FFF_FFFF  // the top bits carry FCS flags, not the type
        guard linkType == PcapFormat.rawIPLinkType else { return .failure(.linkType(linkType)) }
        let snapshotLength = read(16)
        guard snapshotLength > 0 else { return .failure(.zeroSnapshotLength) }
        return .success(PcapFileHeader(isByteSwapped: swapped, snapshotLength: snapshotLength, linkType: linkType))
    }
}
