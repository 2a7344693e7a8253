import CaptureTestSupport
import Dispatch
import Foundation
import Testing
import TunnelVisionDigest
@testable import TunnelVisionCaptureFiles

@Suite struct CaptureHashStageTests {
    /// Files cut into pieces of every size, some handed over in borrowed buffers, some copied,
    /// through a pool so small that the writer waits for the thread again and again: each
    /// file's digest is the digest of its bytes read whole afterwards.
    @Test func eachFilesDigestIsTheDigestOfItsBytesInTheOrderHandedOver() throws {
        let stage = CaptureHashStage(poolSize: 2, bufferBytes: 64)
        defer { stage.stop() }
        var generator = SystemRandomNumberGenerator()
        var tickets: [Int] = []
        var files: [[UInt8]] = []
        for fileIndex in 0..<5 {
            let file = (0..<(fileIndex * 3_001 + 17)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var offset = 0
            var piece = 0
            while offset < file.count {
                piece += 1
                let length = min(file.count - offset, [1, 16, 63, 64, 200][piece % 5])
                let bytes = Array(file[offset..<offset + length])
                if piece.isMultiple(of: 2) {
                    let buffer = stage.borrow(minimumBytes: length)
                    buffer.copyBytes(from: bytes)
                    stage.hash(buffer, count: length)
                } else {
                    bytes.withUnsafeBytes { stage.copy($0) }
                }
                offset += length
            }
            tickets.append(stage.finishFile())
            files.append(file)
        }
        let digests = try tickets.map { try stage.digest($0).get() }
        #expect(digests == files.map { SHA256Hasher.hex(of: $0) })
    }

    /// The queue is bounded by the pool: with the thread held back and every buffer handed
    /// over, the next borrow waits, and goes on as soon as one buffer was hashed.
    @Test func borrowingWaitsWhileEveryBufferIsWithTheThread() throws {
        let stage = CaptureHashStage(poolSize: 2, bufferBytes: 64)
        // At idle priority on a busy machine the thread could take longer than the test allows.
        stage.hashesAtIdlePriority = false
        let gate = DispatchSemaphore(value: 0)
        stage.beforeHashing = { gate.wait() }
        for _ in 0..<2 {
            let buffer = stage.borrow(minimumBytes: 8)
            buffer.initializeMemory(as: UInt8.self, repeating: 7)
            stage.hash(buffer, count: 8)
        }
        let borrowed = DispatchSemaphore(value: 0)
        Thread {
            stage.giveBack(stage.borrow(minimumBytes: 8))
            borrowed.signal()
        }.start()
        #expect(borrowed.wait(timeout: .now() + 0.3) == .timedOut)
        gate.signal()
        #expect(borrowed.wait(timeout: .now() + 10) == .success)
        gate.signal()
        let ticket = stage.finishFile()
        #expect(try stage.digest(ticket).get() == SHA256Hasher.hex(of: [UInt8](repeating: 7, count: 16)))
        stage.stop()
    }

    /// The live writer never waits: with the thread held back and all but one buffer queued, its
    /// next buffers stay with it and their bytes are read back from the file, each range joined to
    /// the one before it; the digest is still the file's, in the order the bytes were written.
    @Test func aWriterAheadOfTheThreadKeepsItsBufferAndTheFileIsReadBack() throws {
        let stage = CaptureHashStage(poolSize: 3, bufferBytes: 64)
        stage.hashesAtIdlePriority = false
        let gate = DispatchSemaphore(value: 0)
        stage.beforeHashing = { gate.wait() }
        let directory = try TemporaryDirectory()
        let path = directory.file("read-back")
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var file: [UInt8] = []
        var buffer = stage.borrow(minimumBytes: 64)
        var readBack = 0
        for piece in 0..<12 {
            let bytes = (0..<(40 + piece)).map { UInt8(truncatingIfNeeded: $0 * 7 + piece) }
            buffer.copyBytes(from: bytes)
            #expect(write(descriptor, buffer.baseAddress, bytes.count) == bytes.count)
            if let next = stage.handOver(buffer, count: bytes.count, writtenTo: descriptor, at: UInt64(file.count), minimumBytes: 64) {
                buffer = next
            } else {
                readBack += 1
            }
            file += bytes
        }
        // Two buffers went to the thread (one is being hashed, held at the gate); the rest were read back.
        #expect(readBack == 10)
        let ticket = stage.finishFile()
        #expect(!stage.hasDigest(ticket))
        gate.signal()
        gate.signal()
        #expect(try stage.digest(ticket).get() == SHA256Hasher.hex(of: file))
        stage.giveBack(buffer)
        stage.stop()
    }

    /// An owner asking for a digest does not wait for a thread that gets no CPU time: it hashes
    /// what is queued itself, buffers and bytes read back alike.
    @Test func theOwnerAskingForADigestHashesWhatTheThreadDidNotReach() throws {
        let directory = try TemporaryDirectory()
        let (stage, descriptor) = try stageWithoutThread(writing: directory.file("never-hashed"))
        defer { close(descriptor) }
        let header: [UInt8] = Array("header".utf8)
        stage.copyWithoutWaiting(header)
        var file = header
        var buffer = stage.borrow(minimumBytes: 16)
        for piece in 0..<5 {
            let bytes = [UInt8](repeating: UInt8(piece), count: 16)
            buffer.copyBytes(from: bytes)
            #expect(pwrite(descriptor, buffer.baseAddress, 16, off_t(file.count)) == 16)
            buffer = stage.handOver(buffer, count: 16, writtenTo: descriptor, at: UInt64(file.count), minimumBytes: 16) ?? buffer
            file += bytes
        }
        // Larger than one read-back piece (16 bytes), so it is read in several.
        #expect(try stage.digest(stage.finishFile()).get() == SHA256Hasher.hex(of: file))
        stage.giveBack(buffer)
    }

    /// Bytes that cannot be read back spoil the file's digest: it is given out as a failure,
    /// never as the digest of something else, and the next file is hashed as usual.
    @Test func aFileWhoseBytesCannotBeReadBackHasNoDigest() throws {
        let directory = try TemporaryDirectory()
        let (stage, descriptor) = try stageWithoutThread(writing: directory.file("short"))
        defer { close(descriptor) }
        let first = stage.borrow(minimumBytes: 16)
        first.initializeMemory(as: UInt8.self, repeating: 1)
        let second = try #require(stage.handOver(first, count: 16, writtenTo: descriptor, at: 0, minimumBytes: 16))
        // The file holds none of these bytes: the read comes back short.
        #expect(stage.handOver(second, count: 16, writtenTo: descriptor, at: 16, minimumBytes: 16) == nil)
        #expect(throws: CaptureHashStage.ReadBackFailure.self) { try stage.digest(stage.finishFile()).get() }
        second.initializeMemory(as: UInt8.self, repeating: 2)
        stage.hash(second, count: 16)
        #expect(try stage.digest(stage.finishFile()).get() == SHA256Hasher.hex(of: [UInt8](repeating: 2, count: 16)))
    }

    /// A stage whose thread never runs (as one that gets no CPU time), and a new file to write.
    private func stageWithoutThread(writing path: String) throws -> (CaptureHashStage, Int32) {
        let stage = CaptureHashStage(poolSize: 2, bufferBytes: 16)
        stage.startsThread = false
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        try #require(descriptor >= 0)
        return (stage, descriptor)
    }

    /// A record larger than the usual buffer gets a buffer of its size.
    @Test func aBorrowedBufferHoldsAtLeastWhatWasAskedFor() throws {
        let stage = CaptureHashStage(poolSize: 2, bufferBytes: 64)
        defer { stage.stop() }
        let buffer = stage.borrow(minimumBytes: 1_000)
        #expect(buffer.count >= 1_000)
        buffer.initializeMemory(as: UInt8.self, repeating: 1)
        stage.hash(buffer, count: 1_000)
        #expect(try stage.digest(stage.finishFile()).get() == SHA256Hasher.hex(of: [UInt8](repeating: 1, count: 1_000)))
    }
}
