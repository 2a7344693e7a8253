import Foundation
import TunnelVisionDigest
import TunnelVisionModel

/// How the capture is cut into files.
public struct CaptureFileConfiguration: Sendable, Hashable {
    public var directory: String
    public var snapshotLength: UInt32
    public var rotationBytes: UInt64
    /// Whether `flush()` waits for the storage device (fdatasync) or only hands the bytes to the
    /// kernel. A crash of the daemon loses nothing either way; a power cut needs the first.
    public var flushReachesStorage: Bool
    /// 0: every record goes to the kernel as it is written, and a failed write fails that record
    /// alone. More: records gather in memory up to this many bytes and go out together, at the
    /// latest at `flush()` — for a writer that stops at its first failure (an offline import),
    /// since a failed write then loses every record gathered since the last flush.
    public var bufferBytes: Int

    public init(
        directory: String,
        snapshotLength: UInt32 = PcapFormat.defaultSnapshotLength,
        rotationBytes: UInt64 = 64 * 1024 * 1024,
        flushReachesStorage: Bool = true,
        bufferBytes: Int = 0
    ) {
        self.directory = directory
        self.snapshotLength = max(1, snapshotLength)
        self.rotationBytes = rotationBytes
        self.flushReachesStorage = flushReachesStorage
        self.bufferBytes = max(0, bufferBytes)
    }
}

/// A record put into the writer's gather buffer, not yet written.
public struct StagedRecord: Sendable, Hashable {
    /// Where it starts once written.
    public let location: CaptureLocation
    let payloadOffset: Int
    let capturedLength: Int
}

/// A file the writer opened or finished, for the history's `capture_files` table. A finished file
/// comes with the SHA-256 (lower-case hex) of the bytes the writer wrote into it, for its seal.
public enum CaptureFileChange: Sendable, Hashable {
    case opened(CaptureFile)
    case closed(CaptureFile, sha256: String)
    /// Finished, but bytes the hashing stage had to read back from it could not be read: it has
    /// no digest and must not be sealed.
    case unhashed(CaptureFile, CaptureReadError)
}

/// Appends packets to rotating pcap files and says where each one went. One thread owns it.
///
/// Records go straight to the kernel, one `writev` each, so that a failed write can be undone
/// exactly (the file is cut back to the record's start) and every location it returned points
/// at bytes the kernel holds; or, with `bufferBytes`, in large writes, for an owner that stops at
/// its first failure; or staged (`stage`, `writeStaged`), a round of records in one write whose
/// locations count only once it went through, for the live recorder. `flush()` is the barrier
/// before a database batch commits.
public final class CaptureFileWriter {
    public private(set) var configuration: CaptureFileConfiguration
    private var nextSequence: UInt32?
    private var open: OpenFile?
    private var changes: [Change] = []
    /// Hashes what went to the kernel, off this thread; a closed file's change is given out once
    /// its digest is there (see `takeChanges`), not when the file ends.
    private let hashing: CaptureHashStage
    /// Records not yet handed to the kernel (only with `bufferBytes` > 0).
    private var pending: [UInt8] = []
    private let recordHeader = UnsafeMutableRawBufferPointer.allocate(
        byteCount: PcapFormat.recordHeaderLength, alignment: 4)
    /// Staged records (see `stage`), round after round until it is full; borrowed from the
    /// hashing stage, and handed to it then, with every byte in it written: the buffer is hashed
    /// as it is, and the next rounds stage into another.
    private var gather: UnsafeMutableRawBufferPointer?
    /// How much of `gather` may be filled.
    private var gatherRoom = 0
    private var gathered = 0
    /// The part of `gathered` that went to the kernel, and where in the file the buffer starts.
    private var gatherWritten = 0
    private var gatherFileOffset: UInt64 = 0
    /// The gather buffer's size; settable before the first `stage` (tests make it small).
    var gatherCapacity = 1 << 20

    /// A closed file's digest is a ticket with the hashing stage until the change is taken.
    private enum Change {
        case opened(CaptureFile)
        case closed(CaptureFile, ticket: Int)
    }

    private struct OpenFile {
        let descriptor: Int32
        let sequence: UInt32
        let path: String
        let createdAt: Date
        let snapshotLength: UInt32
        /// With the records still in `pending`.
        var length: UInt64
        /// What the kernel holds.
        var written: UInt64
        var unflushed: Bool
    }

    /// `highestSequenceInHistory` is the largest sequence the database ever recorded; the
    /// directory is read too, so that neither a pruned row nor a stray file makes a sequence
    /// come round twice.
    public convenience init(configuration: CaptureFileConfiguration, highestSequenceInHistory: UInt32) throws(CaptureWriteError) {
        try self.init(configuration: configuration, highestSequenceInHistory: highestSequenceInHistory, hashing: CaptureHashStage())
    }

    init(configuration: CaptureFileConfiguration, highestSequenceInHistory: UInt32, hashing: CaptureHashStage) throws(CaptureWriteError) {
        self.configuration = configuration
        self.hashing = hashing
        let highest = max(highestSequenceInHistory, CaptureFileName.highestSequence(inDirectory: configuration.directory))
        nextSequence = highest == .max ? nil : highest + 1
        guard nextSequence != nil else { throw .sequencesExhausted }
    }

    deinit {
        if let open { Glibc.close(open.descriptor) }
        recordHeader.deallocate()
        gather?.deallocate()
        hashing.stop()
    }

    /// The file being written, as it stands now.
    public var currentFile: CaptureFile? {
        open.map { CaptureFile(sequence: $0.sequence, path: $0.path, createdAt: $0.createdAt, closedAt: nil, bytes: $0.length) }
    }

    /// Takes effect with the next packet, which starts a new file: one file has one snaplen.
    public func setSnapshotLength(_ length: UInt32) {
        configuration.snapshotLength = max(1, length)
    }

    /// Files opened since the last call, and files closed whose digest is there, oldest first (a
    /// closed file's digest covers every byte written into it). While a file is open, a closed one
    /// whose digest the hashing stage has not reached stays for a later call, with every one closed
    /// after it, so the owner never waits for hashing while packets flow. With no file open (the
    /// owner closed it, or a full disk ended it) this waits for every digest.
    public func takeChanges() -> [CaptureFileChange] {
        let waits = open == nil
        var taken: [CaptureFileChange] = []
        var kept: [Change] = []
        for change in changes {
            switch change {
            case .opened(let file):
                taken.append(.opened(file))
            case .closed(let file, let ticket):
                guard kept.isEmpty, waits || hashing.hasDigest(ticket) else {
                    kept.append(change)
                    continue
                }
                switch hashing.digest(ticket) {
                case .success(let sha256): taken.append(.closed(file, sha256: sha256))
                case .failure(let failure): taken.append(.unhashed(file, .unreadable(path: file.path, errno: failure.errno)))
                }
            }
        }
        changes = kept
        return taken
    }

    /// Appends one packet (cut to the snapshot length) and returns where its record starts.
    public func write(_ packet: UnsafeRawBufferPointer, timestampNanoseconds: Int64) throws(CaptureWriteError) -> CaptureLocation {
        let captured = min(UInt32(clamping: packet.count), configuration.snapshotLength)
        let recordLength = UInt64(PcapFormat.recordHeaderLength) + UInt64(captured)
        if needsNewFile(recordLength: recordLength) {
            try rotate(at: Date(nanosecondsSinceEpoch: timestampNanoseconds))
        }
        guard var file = open else { throw .sequencesExhausted }

        let (seconds, microseconds) = PcapFormat.recordTimestamp(nanoseconds: timestampNanoseconds)
        recordHeader.storeBytes(of: seconds.littleEndian, toByteOffset: 0, as: UInt32.self)
        recordHeader.storeBytes(of: microseconds.littleEndian, toByteOffset: 4, as: UInt32.self)
        recordHeader.storeBytes(of: captured.littleEndian, toByteOffset: 8, as: UInt32.self)
        recordHeader.storeBytes(of: UInt32(clamping: packet.count).littleEndian, toByteOffset: 12, as: UInt32.self)

        let start = file.length
        let payload = UnsafeRawBufferPointer(rebasing: packet.prefix(Int(captured)))
        if configuration.bufferBytes > 0 {
            pending.append(contentsOf: UnsafeRawBufferPointer(recordHeader))
            pending.append(contentsOf: payload)
            file.length = start + recordLength
            file.unflushed = true
            open = file
            if pending.count >= configuration.bufferBytes { try writePending() }
            return CaptureLocation(fileSequence: file.sequence, offset: start)
        }
        if let failure = writeAll(descriptor: file.descriptor, header: UnsafeRawBufferPointer(recordHeader), payload: payload) {
            // Leave no half record behind: whatever reached the file is cut off again.
            _ = ftruncate(file.descriptor, off_t(start))
            _ = lseek(file.descriptor, off_t(start), SEEK_SET)
            let error = CaptureWriteError.from(errno: failure, path: file.path, directory: configuration.directory)
            if case .noSpace = error { finishAfterNoSpace(file, at: Date(nanosecondsSinceEpoch: timestampNanoseconds)) }
            throw error
        }
        passWrittenToHashing()
        hashing.copy(UnsafeRawBufferPointer(recordHeader))
        hashing.copy(payload)
        file.length = start + recordLength
        file.written = file.length
        file.unflushed = true
        open = file
        return CaptureLocation(fileSequence: file.sequence, offset: start)
    }

    // MARK: Staged records

    /// Puts a record into the gather buffer and says where it will start in the file, or nil
    /// when the records staged so far must go out first (`writeStaged`): the buffer has no room
    /// for it, or it belongs in a new file. Unlike `bufferBytes`, nothing is promised before the
    /// write: the owner hands a staged packet on only once `writeStaged` said whether it landed,
    /// so a failed write costs those packets their bytes, never a row that points at nothing.
    public func stage(_ packet: UnsafeRawBufferPointer, timestampNanoseconds: Int64) throws(CaptureWriteError) -> StagedRecord? {
        let captured = min(UInt32(clamping: packet.count), configuration.snapshotLength)
        let recordLength = PcapFormat.recordHeaderLength + Int(captured)
        if needsNewFile(recordLength: UInt64(recordLength)) {
            guard gathered == gatherWritten else { return nil }
            try rotate(at: Date(nanosecondsSinceEpoch: timestampNanoseconds))
        }
        guard var file = open else { throw .sequencesExhausted }
        if gathered == gatherWritten, gather == nil || gatherRoom - gathered < recordLength {
            // Everything in the buffer was written: it goes to the hashing stage, and an empty
            // buffer, which always takes the record (it grows, never below its usual size), follows.
            passWrittenToHashing()
            if gather == nil || gatherRoom < recordLength {
                if let gather { hashing.giveBack(gather) }
                gatherRoom = max(gatherCapacity, recordLength)
                gather = hashing.borrow(minimumBytes: gatherRoom)
            }
        }
        guard let buffer = gather, gatherRoom - gathered >= recordLength else { return nil }
        if gathered == 0 { gatherFileOffset = file.length }
        let (seconds, microseconds) = PcapFormat.recordTimestamp(nanoseconds: timestampNanoseconds)
        let header = buffer.baseAddress! + gathered
        header.storeBytes(of: seconds.littleEndian, toByteOffset: 0, as: UInt32.self)
        header.storeBytes(of: microseconds.littleEndian, toByteOffset: 4, as: UInt32.self)
        header.storeBytes(of: captured.littleEndian, toByteOffset: 8, as: UInt32.self)
        header.storeBytes(of: UInt32(clamping: packet.count).littleEndian, toByteOffset: 12, as: UInt32.self)
        if let source = packet.baseAddress {
            (header + PcapFormat.recordHeaderLength).copyMemory(from: source, byteCount: Int(captured))
        }
        let record = StagedRecord(location: CaptureLocation(fileSequence: file.sequence, offset: file.length),
                                  payloadOffset: gathered + PcapFormat.recordHeaderLength, capturedLength: Int(captured))
        gathered += recordLength
        file.length += UInt64(recordLength)
        open = file
        return record
    }

    /// What a staged record holds: readable until the next `stage` (the buffer goes to the hashing
    /// stage only there, which only reads it; the writer borrows it again only after it was hashed).
    public func stagedBytes(_ record: StagedRecord) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: gather.map { $0.baseAddress! + record.payloadOffset }, count: record.capturedLength)
    }

    /// Hands every staged record to the kernel in one write. On failure the file is cut back to
    /// what it held before them, and none of them is in it; a full disk ends the file at `instant`.
    /// The owner writes what it staged before `flush()` and `close(at:)`.
    public func writeStaged(at instant: Date) throws(CaptureWriteError) {
        guard gathered > gatherWritten, let buffer = gather else { return }
        let round = gatherWritten..<gathered
        gathered = gatherWritten
        guard var file = open else { return }
        if let failure = writeAll(descriptor: file.descriptor, header: UnsafeRawBufferPointer(rebasing: buffer[round]),
                                  payload: UnsafeRawBufferPointer(start: nil, count: 0)) {
            _ = ftruncate(file.descriptor, off_t(file.written))
            _ = lseek(file.descriptor, off_t(file.written), SEEK_SET)
            file.length = file.written
            open = file
            let error = CaptureWriteError.from(errno: failure, path: file.path, directory: configuration.directory)
            if case .noSpace = error { finishAfterNoSpace(file, at: instant) }
            throw error
        }
        gathered = round.upperBound
        gatherWritten = gathered
        file.written = file.length
        file.unflushed = true
        open = file
    }

    /// Hands the gathered records to the kernel in one write. On failure the file is cut back to
    /// what it held before them, and they are gone: the writer's owner stops there.
    private func writePending() throws(CaptureWriteError) {
        guard var file = open, !pending.isEmpty else { return }
        let failure = pending.withUnsafeBytes { bytes in
            let failure = writeAll(descriptor: file.descriptor, header: bytes, payload: UnsafeRawBufferPointer(start: nil, count: 0))
            if failure == nil {
                passWrittenToHashing()
                hashing.copy(bytes)
            }
            return failure
        }
        pending.removeAll(keepingCapacity: true)
        if let failure {
            _ = ftruncate(file.descriptor, off_t(file.written))
            _ = lseek(file.descriptor, off_t(file.written), SEEK_SET)
            file.length = file.written
            open = file
            throw .from(errno: failure, path: file.path, directory: configuration.directory)
        }
        file.written = file.length
        open = file
    }

    /// Makes every record written so far durable before the batch that points at them commits.
    public func flush() throws(CaptureWriteError) {
        try writePending()
        guard var file = open, file.unflushed else { return }
        if configuration.flushReachesStorage, fdatasync(file.descriptor) != 0 {
            let failure = errno
            throw .from(errno: failure, path: file.path, directory: configuration.directory)
        }
        file.unflushed = false
        open = file
    }

    /// Finishes the current file (for a clean stop); the next write opens a new one.
    public func close(at instant: Date) throws(CaptureWriteError) {
        guard let file = open else { return }
        try flush()
        passWrittenToHashing()
        Glibc.close(file.descriptor)
        open = nil
        changes.append(.closed(CaptureFile(sequence: file.sequence, path: file.path, createdAt: file.createdAt, closedAt: instant, bytes: file.length),
                               ticket: hashing.finishFile()))
    }

    /// A full file system still takes small records into the slack of this file's last block, so
    /// capture would flap between written and not while the disk is full. The file ends here
    /// instead: capture resumes in a new file, once there is room for one.
    private func finishAfterNoSpace(_ file: OpenFile, at instant: Date) {
        passWrittenToHashing()
        _ = fdatasync(file.descriptor)
        Glibc.close(file.descriptor)
        open = nil
        changes.append(.closed(CaptureFile(sequence: file.sequence, path: file.path, createdAt: file.createdAt, closedAt: instant, bytes: file.length),
                               ticket: hashing.finishFile()))
    }

    /// Hands the gather buffer's written bytes to the hashing stage, before anything written
    /// after them and before their file ends; what was staged and not written is dropped.
    private func passWrittenToHashing() {
        guard let buffer = gather, let file = open else { return }
        gathered = 0
        guard gatherWritten > 0 else { return }
        if let next = hashing.handOver(buffer, count: gatherWritten, writtenTo: file.descriptor, at: gatherFileOffset,
                                       minimumBytes: gatherRoom) {
            gather = next
        }
        gatherWritten = 0
    }

    private func needsNewFile(recordLength: UInt64) -> Bool {
        guard let file = open else { return true }
        if file.snapshotLength != configuration.snapshotLength { return true }
        let holdsRecords = file.length > UInt64(PcapFormat.fileHeaderLength)
        return holdsRecords && file.length + recordLength > configuration.rotationBytes
    }

    private func rotate(at instant: Date) throws(CaptureWriteError) {
        try close(at: instant)
        guard let sequence = nextSequence else { throw .sequencesExhausted }
        let path = configuration.directory + "/" + CaptureFileName.name(sequence: sequence, createdAt: instant)
        // O_EXCL: a sequence is never written twice, not even over a file someone left behind.
        // Readable too: bytes the hashing stage falls behind on are read back through it.
        let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else {
            let failure = errno
            throw .from(errno: failure, path: path, directory: configuration.directory)
        }
        let header = PcapFormat.fileHeader(snapshotLength: configuration.snapshotLength)
        let failure = header.withUnsafeBytes { writeAll(descriptor: descriptor, header: $0, payload: UnsafeRawBufferPointer(start: nil, count: 0)) }
        if let failure {
            Glibc.close(descriptor)
            unlink(path)
            throw .from(errno: failure, path: path, directory: configuration.directory)
        }
        nextSequence = sequence == .max ? nil : sequence + 1
        hashing.copyWithoutWaiting(header)
        let file = OpenFile(descriptor: descriptor, sequence: sequence, path: path, createdAt: instant,
                            snapshotLength: configuration.snapshotLength, length: UInt64(header.count), written: UInt64(header.count),
                            unflushed: true)
        open = file
        changes.append(.opened(CaptureFile(sequence: sequence, path: path, createdAt: instant, closedAt: nil, bytes: file.length)))
    }
}
