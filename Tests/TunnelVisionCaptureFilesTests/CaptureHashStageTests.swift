import Dispatch
import Foundation
import Testing
import TunnelVisionDigest
@testable import TunnelVisionCaptureFiles

@Suite struct CaptureHashStageTests {
    /// Files cut into pieces of every size, some handed over in borrowed buffers, some copied,
    /// through a pool so small that the writer waits for the thread again and again: each
    /// file's digest is the digest of its bytes read whole afterwards.
    @Test func eachFilesDigestIsTheDigestOfItsBytesInTheOrderHandedOver() {
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
        let digests = tickets.map { stage.digest($0) }
        #expect(digests == files.map { SHA256Hasher.hex(of: $0) })
    }

    /// The queue is bounded by the pool: with the thread held back and every buffer handed
    /// over, the next borrow waits, and goes on as soon as one buffer was hashed.
    @Test func borrowingWaitsWhileEveryBufferIsWithTheThread() throws {
        let stage = CaptureHashStage(poolSize: 2, bufferBytes: 64)
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
        #expect(stage.digest(ticket) == SHA256Hasher.hex(of: [UInt8](repeating: 7, count: 16)))
        stage.stop()
    }

    /// A record larger than the usual buffer gets a buffer of its size.
    @Test func aBorrowedBufferHoldsAtLeastWhatWasAskedFor() {
        let stage = CaptureHashStage(poolSize: 2, bufferBytes: 64)
        defer { stage.stop() }
        let buffer = stage.borrow(minimumBytes: 1_000)
        #expect(buffer.count >= 1_000)
        buffer.initializeMemory(as: UInt8.self, repeating: 1)
        stage.hash(buffer, count: 1_000)
        #expect(stage.digest(stage.finishFile()) == SHA256Hasher.hex(of: [UInt8](repeating: 1, count: 1_000)))
    }
}
