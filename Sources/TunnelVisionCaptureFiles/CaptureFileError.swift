/// Why a file is not one of our capture files.
public enum ForeignCaptureReason: Error, Sendable, Hashable {
    case shorterThanHeader
    case unknownMagic
    case unsupportedVersion
    case linkType(UInt32)
    case zeroSnapshotLength
}

/// What went wrong reading a packet back from a capture file.
public enum CaptureReadError: Error, Sendable, Hashable {
    /// The file is gone (retention never takes evidence; deleting by hand does).
    case missing(path: String)
    /// The file exists but could not be opened or read: permissions, I/O (errno).
    case unreadable(path: String, errno: Int32)
    /// The path names a FIFO, a device or a directory: it was not opened, since opening a FIFO
    /// blocks and opening a device can act on it.
    case notRegularFile(path: String)
    /// The file is not a TunnelVision capture: wrong magic, version or link type.
    case foreign(path: String, reason: ForeignCaptureReason)
    /// No record can start at this offset: inside the file header.
    case noRecordAt(path: String, offset: UInt64)
    /// The record header claims more bytes than the file's snapshot length allows: the offset
    /// does not point at a record header, or the file was damaged.
    case recordLongerThanSnapshot(path: String, offset: UInt64, claimed: UInt32)
    /// The file ends inside the record: a torn tail after a crash, or a truncated copy.
    case recordCutShort(path: String, offset: UInt64)
}

/// What went wrong writing the capture.
public enum CaptureWriteError: Error, Sendable, Hashable {
    /// The capture directory cannot hold the bytes; the file was cut back to before the record and
    /// finished there, so that the next write, once there is room, opens a new one.
    case noSpace(directory: String)
    /// Any other I/O failure, with its errno, on the named path.
    case io(path: String, errno: Int32)
    /// Every sequence number up to UInt32.max was issued; sequences never wrap.
    case sequencesExhausted
}
